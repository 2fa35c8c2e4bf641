import { afterEach, describe, expect, it } from 'vitest';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import { tempHome } from '../helpers/hub.js';
import { joinOver, startServe, stopHubs } from '../helpers/serve.js';

/** The web page in a real browser against a real hub process. */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  // The hubs first: a running hub may still write in its home (its search index starts seconds after it opens).
  await stopHubs();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('web page sign-in', () => {
  it('web - sign-in is required; a wrong password is refused; the right one signs the human in; sign-out works', async () => {
    const { home, cleanup } = tempHome();
    cleanups.push(cleanup);
    const hub = await startServe(home, { env: { PARLEY_WEBUI_PASSWORD: 'open sesame' } });
    await joinOver(hub, { handle: 'coder', session: 'other' });
    const { browser, close } = await launchBrowser();
    cleanups.push(close);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${hub.url}/`);
    await page.getByLabel('Password').fill('guess');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Wrong password');
    await page.screenshot({ path: screenshotPath('login-refused') });
    await page.getByLabel('Password').fill('open sesame');
    await page.getByLabel('Session').fill('proj');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('.bar .who').textContent()).toContain('@human');
    expect(await page.getByLabel('Session', { exact: true }).inputValue()).toBe('proj');
    await page.screenshot({ path: screenshotPath('signed-in') });
    // The cookie keeps the human signed in across a reload, and sign-out ends it.
    await page.reload();
    await expect.poll(() => page.locator('.bar .who').textContent()).toContain('@human');
    // The session picker lists only the human's own sessions ("other" is the agent's), and
    // moves the human to another session named on request; moving reloads the page into it.
    const picker = page.getByLabel('Session', { exact: true });
    // The counts come with the sessions list, which loads after the page shows the human.
    await expect.poll(() => picker.locator('option').allTextContents()).toEqual(['proj (1)', 'Another session…']);
    await picker.selectOption({ label: 'Another session…' });
    await page.getByLabel('Session name').fill('other');
    await page.screenshot({ path: screenshotPath('session-picker-another') });
    const reloaded = page.waitForEvent('load');
    await page.getByRole('button', { name: 'Go' }).click();
    await reloaded;
    await expect.poll(() => picker.inputValue()).toBe('other');
    await page.locator('.live-live').waitFor();
    expect(await page.evaluate(() => fetch('/api/v1/whoami').then((r) => r.json() as Promise<{ session: { name: string } }>).then((w) => w.session.name))).toBe('other');
    // Joined now, "other" is listed, and the picker moves back and forth between the two.
    await expect.poll(() => picker.locator('option').allTextContents()).toEqual(['other (2)', 'proj (1)', 'Another session…']);
    const back = page.waitForEvent('load');
    await picker.selectOption('proj');
    await back;
    await expect.poll(() => picker.inputValue()).toBe('proj');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.getByLabel('Password').count()).toBe(1);
  }, 60_000);

  it('web - without a hub password the page says so and sign-in is off', async () => {
    const { home, cleanup } = tempHome();
    cleanups.push(cleanup);
    const hub = await startServe(home);
    const { browser, close } = await launchBrowser();
    cleanups.push(close);
    const page = await browser.newPage();
    await page.goto(`${hub.url}/`);
    await expect.poll(() => page.locator('.banner').textContent()).toContain('runs without a password');
    expect(await page.getByRole('button', { name: 'Sign in' }).isDisabled()).toBe(true);
    await page.screenshot({ path: screenshotPath('no-password') });
  }, 60_000);
});
