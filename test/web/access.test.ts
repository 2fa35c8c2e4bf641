import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { tempHome } from '../helpers/hub.js';
import { joinOver, startServe, stopHubs, type RunningHub } from '../helpers/serve.js';
import { signIn } from '../helpers/web.js';
import { hubKeyPathOf, readKeyFile } from '../../src/trust/key-files.js';
import { formatPublicKey, rawPublicKeyOf } from '../../src/trust/node-id.js';
import { signRoster } from '../../src/trust/roster.js';

/** The page shows the caller's access and local mode plainly, offers steering to admins only, and sets a channel's access policy. */
const PASSWORD = 'who-may-steer';
let hub: RunningHub;
let browser: Browser;
let closeBrowser: () => Promise<void>;
let page: Page;
let cleanupHome: () => void;
let hubHome: string;

beforeAll(async () => {
  const { home, cleanup } = tempHome();
  cleanupHome = cleanup;
  hubHome = home;
  hub = await startServe(home, { env: { PARLEY_WEBUI_PASSWORD: PASSWORD } });
  ({ browser, close: closeBrowser } = await launchBrowser());
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await signIn(page, hub, PASSWORD);
}, 60_000);

afterAll(async () => {
  await closeBrowser?.();
  await stopHubs();
  cleanupHome?.();
});

const setAccess = async (handle: string, access: string): Promise<void> => {
  const res = await fetch(`${hub.url}/api/v1/participants/${handle}/access`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${hub.adminToken()}`, 'content-type': 'application/json' },
    body: JSON.stringify({ access }),
  });
  expect(res.status).toBe(200);
};

describe('web page: access', () => {
  it('web access - the human sees its access and the local-mode notice; steering is offered to an admin only', async () => {
    await expect.poll(() => page.locator('.bar .who .access').textContent()).toBe('admin');
    await expect.poll(() => page.locator('.notice.trust-local').textContent()).toContain('Local mode (no roster). Humans are admins and agents operators');
    await page.locator('.thread-head').getByRole('button', { name: 'Steering' }).waitFor();
    // Made a member by the home's admin token: the page no longer offers steering (and the hub would refuse it).
    await setAccess('human', 'member');
    await page.reload();
    await page.locator('.live-live').waitFor();
    await expect.poll(() => page.locator('.bar .who .access').textContent()).toBe('member');
    await page.locator('.thread-head').waitFor();
    expect(await page.locator('.thread-head').getByRole('button', { name: 'Steering' }).count()).toBe(0);
    await setAccess('human', 'admin');
  });

  it("web access - an admin sets the channel's access policy from the steering panel; the hub enforces it", async () => {
    const coder = await joinOver(hub, { handle: 'coder' });
    // An admin again (the test before ends so): reloaded, the page offers steering.
    await page.reload();
    await page.locator('.live-live').waitFor();
    await page.locator('.thread-head').getByRole('button', { name: 'Steering' }).click();
    const access = page.locator('section.access');
    await expect.poll(() => access.locator('.hint').textContent()).toContain('No access policy');
    await access.getByLabel('Readers').fill('admin');
    await access.getByLabel('Writers').fill('admin');
    await access.getByLabel('Retention (hours)').fill('24');
    await access.getByRole('button', { name: 'Set policy' }).click();
    await expect.poll(() => access.locator('[data-list="readers"]').textContent()).toBe('admin');
    expect(await access.locator('[data-list="retention"]').textContent()).toBe('24 h or 10000 messages');
    expect(await access.locator('[data-list="signed"]').textContent()).toBe('v1 by @human');
    const res = await fetch(`${hub.url}/api/v1/threads/general/history`, { headers: { authorization: `Bearer ${coder}` } });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN_ROLE');
  });

  it('web access - with a roster in force the page names it (org, version, members) instead of local mode', async () => {
    const hubKey = readKeyFile(hubKeyPathOf(hubHome));
    const participants = ((await (await fetch(`${hub.url}/api/v1/hub/roster`, { headers: { authorization: `Bearer ${hub.adminToken()}` } })).json()) as { participants: Array<{ handle: string; pubkey: string }> }).participants;
    const human = participants.find((p) => p.handle === 'human')!;
    const roster = signRoster(
      { org_id: 'acme', version: 1, timestamp: '2026-11-24T12:00:00Z', members: [{ pubkey: formatPublicKey(rawPublicKeyOf(hubKey)), role: 'admin' }, { pubkey: human.pubkey, role: 'member' }], signatures: [] },
      hubKey,
    );
    // @coder, at work in the test before, is left out: confirmed.
    const res = await fetch(`${hub.url}/api/v1/hub/roster`, { method: 'POST', headers: { authorization: `Bearer ${hub.adminToken()}`, 'content-type': 'application/json' }, body: JSON.stringify({ ...roster, confirm: true }) });
    expect(res.status).toBe(200);
    await page.reload();
    await page.locator('.live-live').waitFor();
    await expect.poll(() => page.locator('.notice.trust-roster').textContent()).toContain('Roster acme v1 (2 members): access comes from the signed roster; you are member.');
    expect(await page.locator('.notice.trust-local').count()).toBe(0);
  });
});
