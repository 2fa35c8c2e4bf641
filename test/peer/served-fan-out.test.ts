import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import { tempHomesRemovedAfterEach } from '../helpers/hub.js';
import { cliAt, restCall, startServe, stopHubs, type Json, type RunningHub } from '../helpers/serve.js';
import { linkServed } from './served-link.js';
import { signIn } from '../helpers/web.js';

/**
 * `parley serve` processes linked the way docs/peers.md tells an operator to
 * (keys, roster, import, peer add, check), then one conversation: three hubs
 * where B and C each add only A, a channel every way and a DM; and nothing a
 * hub acknowledged to its poster lost on the other when it is killed while it
 * fans out.
 */
// Registered first, so it runs after the hook below has stopped the hubs using the homes.
const home = tempHomesRemovedAfterEach('parley-served-peers-');
afterEach(async () => {
  await stopHubs();
});

const PEER_ARGS = ['--peer-port', '0', '--peer-host', '127.0.0.1'];
const PASSWORD = 'two-hubs-one-page';

/** Every message of #general as `token` reads it on `hub`, as `author: text`, oldest first. */
async function general(hub: RunningHub, token: string): Promise<string[]> {
  const lines: string[] = [];
  let after = 0;
  for (;;) {
    const { status, json } = await restCall(hub, token, 'GET', `/threads/general/history?after=${after}&limit=500`);
    if (status !== 200) throw new Error(`history answered ${status}: ${JSON.stringify(json)}`);
    const events = json.events as Json[];
    if (events.length === 0) return lines;
    lines.push(...events.filter((e) => e.type === 'message').map((e) => `${e.author}: ${e.content}`));
    after = events[events.length - 1]!.seq as number;
  }
}

describe('served hubs, one conversation', () => {
  it('served peers - three hubs linked in five steps (B and C add only A): a channel carries every way, a DM reaches its addressee\'s hub; the page names the other hubs', async () => {
    const [homeA, homeB, homeC] = [home(), home(), home()];
    // One machine: each hub needs a name of its own (else all take the host name).
    const a = await startServe(homeA, { args: PEER_ARGS, env: { PARLEY_WEBUI_PASSWORD: PASSWORD, PARLEY_PEERS_NAME: 'hub-a' } });
    const b = await startServe(homeB, { args: PEER_ARGS, env: { PARLEY_PEERS_NAME: 'hub-b' } });
    const c = await startServe(homeC, { args: PEER_ARGS, env: { PARLEY_PEERS_NAME: 'hub-c' } });
    // A human signs in on A's page first, so the roster A's operator signs lists them (humans are admins).
    const { browser, close } = await launchBrowser();
    onTestFinished(close);
    const page = await browser.newPage();
    await signIn(page, a, PASSWORD);
    const team = await linkServed([{ home: homeA, hub: a }, { home: homeB, hub: b }, { home: homeC, hub: c }], ['ann', 'bea', 'cal']);
    const [ann, bea, cal] = team.tokens as [string, string, string];
    const [, nameOfB, nameOfC] = team.names as [string, string, string];
    for (const [hub, token, text] of [[a, ann, 'hello from a'], [b, bea, 'hello from b'], [c, cal, 'hello from c']] as const) {
      expect((await restCall(hub, token, 'POST', '/threads/general/messages', { text })).status).toBe(201);
    }
    for (const [hub, token] of [[a, ann], [b, bea], [c, cal]] as const) {
      await expect.poll(() => general(hub, token), { timeout: 20_000, interval: 100 }).toEqual(expect.arrayContaining(['ann: hello from a', 'bea: hello from b', 'cal: hello from c']));
      expect((await general(hub, token)).length).toBe(3);
    }
    // bea, hosted by B, is listed on A with B's name.
    expect(cliAt(homeA, a.url, { PARLEY_TOKEN: ann })('who').stdout).toMatch(new RegExp(`^@bea +\\w+ +agent on hub ${nameOfB}$`, 'm'));
    // On A's page too: bea's message and her line in People carry B's name; ann's, hosted here, none.
    await page.reload();
    await page.locator('.live-live').waitFor();
    await page.locator('.sidebar').getByRole('button', { name: /# general/ }).click();
    const byAuthor = (handle: string) => page.locator('.timeline article.event', { has: page.locator(`.author .handle:text-is("@${handle}")`) });
    await expect.poll(() => byAuthor('bea').locator('.hub-badge').getAttribute('data-hub'), { timeout: 20_000 }).toBe(nameOfB);
    expect(await byAuthor('bea').locator('.hub-badge').textContent()).toBe(`on ${nameOfB}`);
    expect(await byAuthor('ann').count()).toBe(1);
    expect(await byAuthor('ann').locator('.hub-badge').count()).toBe(0);
    const person = (handle: string) => page.locator('.person', { hasText: `@${handle}` });
    expect(await person('bea').locator('.hub-badge').getAttribute('data-hub')).toBe(nameOfB);
    expect(await person('ann').locator('.hub-badge').count()).toBe(0);
    // The sidebar lists B and C among the linked hubs, linked.
    for (const name of [nameOfB, nameOfC]) {
      const linked = page.locator(`.linked-hub[data-hub="${name}"]`);
      expect(await linked.getAttribute('data-state')).toBe('connected');
      expect(await linked.locator('.link-state').textContent()).toBe('linked');
    }
    await page.screenshot({ path: screenshotPath('linked-hubs') });
    const dm = await restCall(a, ann, 'POST', '/dm', { to: 'bea', text: 'a word in private' });
    expect(dm.status, JSON.stringify(dm.json)).toBe(201);
    // The inbox hands each item once: what it showed is kept across the polls.
    const seen: Json[] = [];
    await expect
      .poll(async () => {
        seen.push(...((await restCall(b, bea, 'GET', '/inbox')).json.items as Json[]));
        return seen.filter((item) => item.reason === 'dm').map((item) => [item.event.id, item.event.author, item.event.content]);
      }, { timeout: 20_000, interval: 100 })
      .toEqual([[dm.json.id, 'ann', 'a word in private']]);
  }, 120_000);

  it('served peers - A killed (SIGKILL) while it fans out: every post it acknowledged reaches B once it is back, in order, none twice', async () => {
    const [homeA, homeB] = [home(), home()];
    let a = await startServe(homeA, { args: PEER_ARGS });
    const b = await startServe(homeB, { args: PEER_ARGS });
    const { tokens, addrA } = await linkServed([{ home: homeA, hub: a }, { home: homeB, hub: b }], ['ann', 'bea']);
    const [ann, bea] = tokens as [string, string];
    const peerPort = /\/tcp\/(\d+)\//.exec(addrA)![1]!;
    // Posts go on, one after another, until the kill; each 201 is a post A acknowledged.
    const acknowledged: string[] = [];
    const posting = (async () => {
      for (let i = 0; ; i++) {
        try {
          const { status } = await restCall(a, ann, 'POST', '/threads/general/messages', { text: `m${i}` });
          if (status === 201) acknowledged.push(`ann: m${i}`);
        } catch {
          return;
        }
      }
    })();
    // Killed while B is still taking them in.
    await expect.poll(async () => (await general(b, bea)).length, { timeout: 20_000, interval: 20 }).toBeGreaterThanOrEqual(50);
    await a.stop('SIGKILL');
    await posting;
    expect(acknowledged.length).toBeGreaterThanOrEqual(50);
    // A back on the same peer port (where B keeps it): what B had not acknowledged is sent again.
    a = await startServe(homeA, { args: ['--peer-port', peerPort, '--peer-host', '127.0.0.1'] });
    await expect.poll(async () => (await general(b, bea)).length, { timeout: 30_000, interval: 100 }).toBeGreaterThanOrEqual(acknowledged.length);
    const onB = await general(b, bea);
    // What A acknowledged is all there, in A's order, each once (a post A stored but could not answer may follow).
    expect(onB.slice(0, acknowledged.length)).toEqual(acknowledged);
    expect(new Set(onB).size).toBe(onB.length);
  }, 120_000);
});
