import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's chromium driven by playwright-core (npm cannot download browsers
 * here): headless, without background networking, with a fresh profile.
 * Screenshots go to test-output/ (ignored by git) to be looked at.
 */
export const SCREENSHOTS = path.resolve(import.meta.dirname, '../../test-output/screenshots');

export async function launchBrowser(): Promise<{ browser: Browser; close: () => Promise<void> }> {
  // playwright-core gives every launch a fresh, temporary profile (its own --user-data-dir).
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    browser,
    close: () => browser.close(),
  };
}

export function screenshotPath(name: string): string {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  return path.join(SCREENSHOTS, `${name}.png`);
}
