import { afterEach, describe, expect, it } from 'vitest';
import { tempHomesRemovedAfterEach } from '../helpers/hub.js';
import { cliAt, restCall, startServe, stopHubs, type Json, type RunningHub } from '../helpers/serve.js';
import { linkServed } from './served-link.js';

/**
 * `parley serve` processes cut apart on purpose with `parley peer block`:
 * what each side writes reaches the other through the hub both still reach,
 * `peer list` says why the link is down, and after `parley peer unblock`
 * the three hubs hold the same events, each once.
 */
const home = tempHomesRemovedAfterEach('parley-served-history-');
afterEach(async () => {
  await stopHubs();
});

const ARGS = ['--peer-port', '0', '--peer-host', '127.0.0.1', '--set', 'peers.sync.intervalSeconds=0.2'];

async function generalIds(hub: RunningHub, token: string): Promise<string[]> {
  const { status, json } = await restCall(hub, token, 'GET', '/threads/general/history?limit=500');
  if (status !== 200) throw new Error(`history answered ${status}: ${JSON.stringify(json)}`);
  return (json.events as Json[]).filter((e) => e.type === 'message').map((e) => e.id as string).sort();
}

describe('served hubs cut apart', () => {
  it('served history - parley peer block cuts A from B; each side\'s posts reach the other through C; after unblock the three hold the same events once', async () => {
    const homes = [home(), home(), home()];
    const hubs: RunningHub[] = [];
    for (const [i, dir] of homes.entries()) hubs.push(await startServe(dir, { args: ARGS, env: { PARLEY_PEERS_NAME: `hub-${'abc'[i]}` } }));
    const [a, b, c] = hubs as [RunningHub, RunningHub, RunningHub];
    const team = await linkServed(homes.map((dir, i) => ({ home: dir, hub: hubs[i]! })), ['ann', 'bea', 'cal']);
    const [ann, bea, cal] = team.tokens as [string, string, string];
    const cliA = cliAt(homes[0]!, a.url);
    const cliB = cliAt(homes[1]!, b.url);
    const [keyA, keyB] = [team.keys[0]!, team.keys[1]!];
    const blocked = cliA('peer', 'block', keyB, '--for', '2m', '--json');
    expect(blocked.status, blocked.stderr).toBe(0);
    expect(JSON.parse(blocked.stdout)).toMatchObject({ peer: { key: keyB, state: 'refused' } });
    expect(cliB('peer', 'block', keyA, '--for', '2m').status).toBe(0);
    const bad = cliA('peer', 'block', keyB, '--for', '3 days');
    expect([bad.status, bad.stderr]).toEqual([2, expect.stringMatching(/Invalid --for "3 days": give a duration such as 30s, 10m or 1h/)]);
    const listed = JSON.parse(cliA('peer', 'list', '--json').stdout) as Json[];
    expect(listed.find((peer) => peer.key === keyB)).toMatchObject({ state: 'refused', reason: expect.stringMatching(/^blocked by the operator until /) });
    for (let i = 0; i < 10; i++) {
      expect((await restCall(a, ann, 'POST', '/threads/general/messages', { text: `ann ${i}` })).status).toBe(201);
      expect((await restCall(b, bea, 'POST', '/threads/general/messages', { text: `bea ${i}` })).status).toBe(201);
    }
    await expect.poll(async () => (await generalIds(c, cal)).length, { timeout: 20_000, interval: 100 }).toBe(20);
    const all = await generalIds(c, cal);
    await expect.poll(() => generalIds(a, ann), { timeout: 20_000, interval: 100 }).toEqual(all);
    await expect.poll(() => generalIds(b, bea), { timeout: 20_000, interval: 100 }).toEqual(all);
    expect(cliA('peer', 'unblock', keyB).stdout).toMatch(/^Unblocked ed25519:/);
    expect(cliB('peer', 'unblock', keyA).status).toBe(0);
    expect(cliB('peer', 'unblock', keyA).stdout).toMatch(/was not blocked/);
    expect((await restCall(a, ann, 'POST', '/threads/general/messages', { text: 'healed' })).status).toBe(201);
    await expect.poll(async () => (await generalIds(b, bea)).length, { timeout: 20_000, interval: 100 }).toBe(21);
    const healed = await generalIds(a, ann);
    expect(await generalIds(b, bea)).toEqual(healed);
    await expect.poll(() => generalIds(c, cal), { timeout: 20_000, interval: 100 }).toEqual(healed);
  }, 120_000);
});
