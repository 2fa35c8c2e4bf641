import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { tempHomesRemovedAfterEach } from '../helpers/hub.js';
import { cliAt, joinOver, restCall, startServe, stopHubs, type Json, type RunningHub } from '../helpers/serve.js';
import { signIn } from '../helpers/web.js';

/**
 * Two `parley serve` processes linked the way docs/peers.md tells an
 * operator to (keys, roster, import, peer add, check), then one
 * conversation: a channel both ways, a DM, and nothing a hub acknowledged to
 * its poster lost on the other when it is killed while it fans out.
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

/** Links two served homes as the five steps do; the tokens of @ann (on A) and @bea (on B). */
async function linkTwo(homeA: string, homeB: string, a: RunningHub, b: RunningHub): Promise<{ ann: string; bea: string; addrA: string; nameOfB: string }> {
  const ann = await joinOver(a, { handle: 'ann', profile: { kind: 'agent' } });
  const bea = await joinOver(b, { handle: 'bea', profile: { kind: 'agent' } });
  const cliA = cliAt(homeA, a.url);
  const cliB = cliAt(homeB, b.url);
  // 1. keys: B says who it is. 2. roster: A's operator adds B and signs.
  const selfOf = (cli: typeof cliA) => cli('peer', 'self', '--json').stdout;
  const fileB = path.join(homeA, 'hub-b.json');
  fs.writeFileSync(fileB, selfOf(cliB));
  for (const args of [['roster', 'init', '--org', 'acme'], ['roster', 'add', '--from', fileB], ['roster', 'sign']]) {
    const run = cliA(...args);
    expect(run.status, `${args.join(' ')}: ${run.stderr}`).toBe(0);
  }
  // 3. import: B takes the signed roster.
  const rosterFile = path.join(homeB, 'acme.json');
  fs.copyFileSync(path.join(homeA, 'roster.json'), rosterFile);
  expect(cliB('roster', 'import', rosterFile).status).toBe(0);
  // 4. peer add: B keeps A and dials it.
  const [selfA, selfB] = [JSON.parse(selfOf(cliA)) as Json, JSON.parse(fs.readFileSync(fileB, 'utf8')) as Json];
  const addrA = selfA.addrs[0] as string;
  expect(cliB('peer', 'add', addrA).status).toBe(0);
  // 5. check: both see the link (asked over the admin route: polling the CLI would start a process each time).
  const stateOf = async (hub: RunningHub, key: string) => {
    const res = await fetch(`${hub.url}/api/v1/hub/peers`, { headers: { authorization: `Bearer ${hub.adminToken()}` } });
    return ((await res.json()) as { peers: Json[] }).peers.find((peer) => peer.key === key)?.state;
  };
  await expect.poll(() => stateOf(b, selfA.key as string), { timeout: 20_000, interval: 100 }).toBe('connected');
  await expect.poll(() => stateOf(a, selfB.key as string), { timeout: 20_000, interval: 100 }).toBe('connected');
  return { ann, bea, addrA, nameOfB: selfB.name as string };
}

describe('two served hubs, one conversation', () => {
  it('served peers - linked in five steps, a channel carries both ways and a DM reaches its addressee\'s hub; the page names the other hub', async () => {
    const [homeA, homeB] = [home(), home()];
    const a = await startServe(homeA, { args: PEER_ARGS, env: { PARLEY_WEBUI_PASSWORD: PASSWORD } });
    const b = await startServe(homeB, { args: PEER_ARGS });
    // A human signs in on A's page first, so the roster A's operator signs lists them (humans are admins).
    const { browser, close } = await launchBrowser();
    onTestFinished(close);
    const page = await browser.newPage();
    await signIn(page, a, PASSWORD);
    const { ann, bea, nameOfB } = await linkTwo(homeA, homeB, a, b);
    expect((await restCall(a, ann, 'POST', '/threads/general/messages', { text: 'hello from a' })).status).toBe(201);
    expect((await restCall(b, bea, 'POST', '/threads/general/messages', { text: 'hello from b' })).status).toBe(201);
    for (const [hub, token] of [[a, ann], [b, bea]] as const) {
      await expect.poll(() => general(hub, token), { timeout: 20_000, interval: 100 }).toEqual(expect.arrayContaining(['ann: hello from a', 'bea: hello from b']));
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
    // The sidebar lists B among the linked hubs, linked.
    const linked = page.locator(`.linked-hub[data-hub="${nameOfB}"]`);
    expect(await linked.getAttribute('data-state')).toBe('connected');
    expect(await linked.locator('.link-state').textContent()).toBe('linked');
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
    const { ann, bea, addrA } = await linkTwo(homeA, homeB, a, b);
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
