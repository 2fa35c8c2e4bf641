import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import { tempHome } from '../helpers/hub.js';
import { joinOver, startServe, stopHubs, type RunningHub } from '../helpers/serve.js';
import { signIn } from '../helpers/web.js';

/**
 * The human's page shows what became of a DM they sent: not yet delivered,
 * then put into the agent's context by its hook (POST /inbox/inject), then
 * acknowledged — in a real browser against a real hub process.
 */
const PASSWORD = 'watch-it-land';
let hub: RunningHub;
let browser: Browser;
let closeBrowser: () => Promise<void>;
let page: Page;
let coderToken: string;
let cleanupHome: () => void;

async function call(auth: string, method: string, route: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${hub.url}/api/v1${route}`, { method, headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.ok, `${route} answered ${res.status}`).toBe(true);
  return (await res.json()) as Record<string, unknown>;
}

beforeAll(async () => {
  const { home, cleanup } = tempHome();
  cleanupHome = cleanup;
  hub = await startServe(home, { env: { PARLEY_WEBUI_PASSWORD: PASSWORD } });
  coderToken = await joinOver(hub, { handle: 'coder-1', profile: { client: 'claude-code' } });
  ({ browser, close: closeBrowser } = await launchBrowser());
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await signIn(page, hub, PASSWORD);
}, 60_000);

afterAll(async () => {
  await closeBrowser?.();
  await stopHubs();
  cleanupHome?.();
});

describe('web page: delivery states of what the human sent', () => {
  it("web - a sent DM shows not yet delivered, then seen by coder-1's context, then acknowledged", async () => {
    const human = `Basic ${Buffer.from(`human:${PASSWORD}`).toString('base64')}`;
    const dm = await call(human, 'POST', '/dm', { to: 'coder-1', text: 'please rebase on main' });
    await page.locator('.sidebar').getByRole('button', { name: /@coder-1/ }).click();
    const message = page.locator(`.timeline article.event[data-id="${String(dm.id)}"]`);
    const state = message.locator('.deliveries .delivery[data-to="coder-1"]');
    await expect.poll(() => state.textContent()).toBe('not yet delivered to @coder-1');

    // The agent's hook takes it into its context.
    const injected = await call(`Bearer ${coderToken}`, 'POST', '/inbox/inject', {});
    expect((injected.items as Array<{ id: string }>).map((i) => i.id)).toEqual([dm.id]);
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 15_000 }).toBe('injected');
    expect(await state.textContent()).toBe("seen by @coder-1's context just now");
    expect(await state.locator('time').getAttribute('title')).toMatch(/\d/);
    await page.screenshot({ path: screenshotPath('delivery-injected') });

    await call(`Bearer ${coderToken}`, 'POST', '/inbox/ack', { ids: [dm.id] });
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 15_000 }).toBe('acknowledged');
    expect(await state.textContent()).toBe('acknowledged by @coder-1 just now');
  });
});
