import { afterEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import { tempHome } from '../helpers/hub.js';
import { joinOver, restCall, startServe, stopHubs, type RunningHub } from '../helpers/serve.js';

/** The page before and at sign-in, in a real browser against a real hub process. */
const PASSWORD = 'mind-the-handle';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  // The hubs first: a running hub may still write in its home (its search index starts seconds after it opens).
  await stopHubs();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
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

/** The handles the hub has registered, as a participant (an agent) lists them. */
async function handles(hub: RunningHub, token: string): Promise<string[]> {
  const { status, json } = await restCall(hub, token, 'GET', '/participants');
  expect(status).toBe(200);
  return (json.participants as Array<{ handle: string }>).map((p) => p.handle).sort();
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

  it('web sign-in - a handle no human has is not created unless the person confirms it', async () => {
    const { hub, page } = await hubAndPage();
    const coder = await joinOver(hub, { handle: 'coder' });
    await joinOver(hub, { handle: 'alice', profile: { kind: 'human' } });
    await page.goto(`${hub.url}/`);
    // "alcie" for "alice": the hub refuses, and the page asks.
    await signInAs(page, 'alcie');
    const ask = page.locator('.login .confirm-create');
    await ask.waitFor({ timeout: 5000 });
    expect(await ask.locator('p').textContent()).toBe('No human named alcie here. Create alcie?');
    await page.screenshot({ path: screenshotPath('login-confirm-create') });
    expect(await handles(hub, coder)).toEqual(['alice', 'coder']);
    expect(await page.locator('.bar .who').count()).toBe(0);
    // Not that one: the person corrects the handle and signs in as the human that exists.
    await ask.getByRole('button', { name: 'Cancel' }).click();
    expect(await ask.count()).toBe(0);
    await signInAs(page, 'alice');
    await expect.poll(() => page.locator('.bar .who').textContent()).toContain('@alice');
    expect(await handles(hub, coder)).toEqual(['alice', 'coder']);
    await page.getByRole('button', { name: 'Sign out' }).click();
    // A new human on purpose: confirmed, it is created and signed in.
    await signInAs(page, 'bob');
    await ask.getByRole('button', { name: 'Create bob' }).click();
    await expect.poll(() => page.locator('.bar .who').textContent()).toContain('@bob');
    expect(await handles(hub, coder)).toEqual(['alice', 'bob', 'coder']);
  }, 60_000);
});
