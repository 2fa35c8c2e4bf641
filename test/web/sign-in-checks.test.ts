import { afterEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { tempHome } from '../helpers/hub.js';
import { startServe, stopHubs, type RunningHub } from '../helpers/serve.js';

/** The page before and at sign-in, in a real browser against a real hub process. */
const PASSWORD = 'mind-the-handle';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await stopHubs();
});

async function hubAndPage(): Promise<{ hub: RunningHub; page: Page; consoleErrors: string[] }> {
  const { home, cleanup } = tempHome();
  cleanups.push(cleanup);
  const hub = await startServe(home, { env: { PARLEY_WEBUI_PASSWORD: PASSWORD } });
  const { browser, close } = await launchBrowser();
  cleanups.push(close);
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const consoleErrors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  return { hub, page, consoleErrors };
}

async function signInAs(page: Page, handle: string): Promise<void> {
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByLabel('Handle').fill(handle);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('web page: before and at sign-in', () => {
  it('web sign-in - the first load, signing in, a reload and signing out log no error in the console', async () => {
    const { hub, page, consoleErrors } = await hubAndPage();
    await page.goto(`${hub.url}/`);
    await page.getByLabel('Password').waitFor();
    expect(consoleErrors).toEqual([]);
    await signInAs(page, 'human');
    await page.locator('.live-live').waitFor();
    await page.locator('#thread-title').waitFor();
    expect(consoleErrors).toEqual([]);
    await page.reload();
    await page.locator('.live-live').waitFor();
    expect(consoleErrors).toEqual([]);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Password').waitFor();
    // The page after signing out, loaded afresh: its cookie is gone, and asking who it is stays quiet.
    await page.reload();
    await page.getByLabel('Password').waitFor();
    expect(consoleErrors).toEqual([]);
  }, 60_000);

});
