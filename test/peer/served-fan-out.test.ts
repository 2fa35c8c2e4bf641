import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import { tempHomesRemovedAfterEach } from '../helpers/hub.js';
import { cliAt, joinOver, restCall, startServe, stopHubs, type Json, type RunningHub } from '../helpers/serve.js';
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

interface Served {
  home: string;
  hub: RunningHub;
}

/**
 * Links served hubs as the five steps do: each other hub says who it is, A's
 * operator adds them all to one roster and signs it, each imports it and
 * keeps A as its one peer; the others find each other through A. Returns a
 * token per hub for the agent it hosts (`agents[i]` on `hubs[i]`), A's peer
 * address and each hub's name.
 */
async function linkServed(served: Served[], agents: string[]): Promise<{ tokens: string[]; addrA: string; names: string[] }> {
  const tokens: string[] = [];
  for (const [i, { hub }] of served.entries()) tokens.push(await joinOver(hub, { handle: agents[i]!, profile: { kind: 'agent' } }));
  const clis = served.map(({ home, hub }) => cliAt(home, hub.url));
  const [first, ...others] = served;
  const cliA = clis[0]!;
  // 1. keys: each other hub says who it is. 2. roster: A's operator adds them and signs.
  const selves = clis.map((cli) => cli('peer', 'self', '--json').stdout);
  const files = others.map((_, i) => path.join(first!.home, `hub-${i + 1}.json`));
  files.forEach((file, i) => fs.writeFileSync(file, selves[i + 1]!));
  for (const args of [['roster', 'init', '--org', 'acme'], ...files.map((file) => ['roster', 'add', '--from', file]), ['roster', 'sign']]) {
    const run = cliA(...args);
    expect(run.status, `${args.join(' ')}: ${run.stderr}`).toBe(0);
  }
  const self = selves.map((text) => JSON.parse(text) as Json);
  const addrA = self[0]!.addrs[0] as string;
  for (const [i, { home }] of others.entries()) {
    // 3. import: each takes the signed roster. 4. peer add: each keeps A and dials it.
    const rosterFile = path.join(home, 'acme.json');
    fs.copyFileSync(path.join(first!.home, 'roster.json'), rosterFile);
    expect(clis[i + 1]!('roster', 'import', rosterFile).status).toBe(0);
    expect(clis[i + 1]!('peer', 'add', addrA).status).toBe(0);
  }
  // 5. check: every hub sees every other linked (asked over the admin route: polling the CLI would start a process each time).
  const stateOf = async (hub: RunningHub, key: string) => {
    const res = await fetch(`${hub.url}/api/v1/hub/peers`, { headers: { authorization: `Bearer ${hub.adminToken()}` } });
    return ((await res.json()) as { peers: Json[] }).peers.find((peer) => peer.key === key)?.state;
  };
  for (const [i, { hub }] of served.entries()) {
    for (const [j, other] of self.entries()) {
      if (i !== j) await expect.poll(() => stateOf(hub, other.key as string), { timeout: 20_000, interval: 100 }).toBe('connected');
    }
  }
  return { tokens, addrA, names: self.map((other) => other.name as string) };
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
