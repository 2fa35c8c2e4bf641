import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { inject } from 'vitest';

/**
 * A real Chromium driven by playwright-core: Debian's when installed, else the one
 * npm installs (chosen once per run by test/setup/browser.global.ts); headless,
 * without background networking, with a fresh profile.
 * Screenshots go to test-output/ (ignored by git) to be looked at.
 */
export const SCREENSHOTS = path.resolve(import.meta.dirname, '../../test-output/screenshots');

export async function launchBrowser(): Promise<{ browser: Browser; close: () => Promise<void> }> {
  // playwright-core gives every launch a fresh, temporary profile (its own --user-data-dir).
  const browser = await chromium.launch({
    executablePath: inject('chromiumPath'),
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
