import '../../src/peer/promise-with-resolvers.js';
import fs from 'node:fs';
import path from 'node:path';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { ping } from '@libp2p/ping';
import { tcp } from '@libp2p/tcp';
import { multiaddr } from '@multiformats/multiaddr';
import { createLibp2p } from 'libp2p';
import { afterEach, describe, expect, it } from 'vitest';
import { libp2pKeyOf } from '../../src/peer/peer-identity.js';
import type { Roster } from '../../src/schema/roster.js';
import { hubKeyPathOf, readKeyFile } from '../../src/trust/key-files.js';
import { tempHomesRemovedAfterEach } from '../helpers/hub.js';
import { cliAt, joinOver, startServe, stopHubs, type Json } from '../helpers/serve.js';

/**
 * Two hubs as two operators set them up: B says who it is (`peer self
 * --json`), A's roster takes B as a hub and its participants (`roster add
 * --from`), A signs it; then B's key gets through A's peer gate, where
 * before it was refused.
 */
// Registered first, so it runs after the hook below has stopped the hubs and nodes using the homes.
const home = tempHomesRemovedAfterEach('parley-roster-hubs-');
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await stopHubs();
});

describe('hubs in the roster', () => {
  it('roster hubs - B from its peer self file becomes a hub member of A with its participants, and then links; before, it was refused', async () => {
    const homeA = home();
    const homeB = home();
    const a = await startServe(homeA, { args: ['--peer-port', '0', '--peer-host', '127.0.0.1'] });
    const b = await startServe(homeB);
    await joinOver(a, { handle: 'boss', profile: { kind: 'human' } });
    await joinOver(b, { handle: 'builder', profile: { kind: 'agent' } });
    await joinOver(b, { handle: 'carol', profile: { kind: 'human' } });
    const cliA = cliAt(homeA, a.url);
    const cliB = cliAt(homeB, b.url);
    const selfB = cliB('peer', 'self', '--json');
    expect(selfB.status, selfB.stderr).toBe(0);
    const fileB = path.join(homeA, 'hub-b.json');
    fs.writeFileSync(fileB, selfB.stdout);
    const peerB = JSON.parse(selfB.stdout) as Json;
    const addrA = (JSON.parse(cliA('peer', 'self', '--json').stdout) as Json).addrs[0] as string;

    // B's own hub key, as B would dial with it.
    const nodeB = await createLibp2p({ privateKey: await libp2pKeyOf(readKeyFile(hubKeyPathOf(homeB))), transports: [tcp()], connectionEncrypters: [noise()], streamMuxers: [yamux()], services: { ping: ping() } });
    cleanups.push(() => nodeB.stop());
    const pingA = () => nodeB.services.ping.ping(multiaddr(addrA), { signal: AbortSignal.timeout(10_000) });
    await expect(pingA()).rejects.toThrow();

    expect(cliA('roster', 'init', '--org', 'acme').status).toBe(0);
    const v1File = path.join(homeB, 'acme-v1.json');
    fs.copyFileSync(path.join(homeA, 'roster.json'), v1File);
    await expect(pingA()).rejects.toThrow();
    const added = cliA('roster', 'add', '--from', fileB);
    expect(added.status, added.stderr).toBe(0);
    expect(added.stdout).toContain(`added hub ${peerB.name} as member, @builder as operator, @carol as admin`);
    const draft = JSON.parse(fs.readFileSync(path.join(homeA, 'roster.draft.json'), 'utf8')) as Roster;
    expect(draft.members).toEqual(
      expect.arrayContaining([
        { pubkey: peerB.key, role: 'member', kind: 'hub' },
        { pubkey: (peerB.participants as Json[]).find((p) => p.handle === 'builder')!.key, role: 'operator' },
        { pubkey: (peerB.participants as Json[]).find((p) => p.handle === 'carol')!.key, role: 'admin' },
      ]),
    );
    // Again: nothing new, the draft keeps its version.
    const again = cliA('roster', 'add', '--from', fileB);
    expect(again.stdout).toContain(`added nothing new (already members: hub ${peerB.name}, @builder, @carol)`);

    const signed = cliA('roster', 'sign');
    expect(signed.status, signed.stderr).toBe(0);
    expect(cliA('roster', 'show').stdout).toContain(`${peerB.key}  a hub`);
    expect(await pingA()).toBeGreaterThanOrEqual(0);

    // B's operator hands A's roster to B: B leaves local mode for the org's roster (A's hub, an admin, signed it).
    const v2File = path.join(homeB, 'acme-v2.json');
    fs.copyFileSync(path.join(homeA, 'roster.json'), v2File);
    const imported = cliB('roster', 'import', v2File);
    expect(imported.status, imported.stderr).toBe(0);
    expect(imported.stdout).toContain(`roster acme v2 from ${v2File}: the running hub accepted it: roster acme v2 (5 members) is in force`);
    expect((JSON.parse(cliB('status', '--json').stdout) as Json).trust).toEqual({ mode: 'roster', org: 'acme', version: 2, members: 5 });
    // An older version is a rollback: refused, and v2 stays in force.
    const older = cliB('roster', 'import', v1File);
    expect(older.status).toBe(1);
    expect(older.stdout).toContain('the running hub refused it (ROSTER_ROLLBACK)');
    expect((JSON.parse(cliB('status', '--json').stdout) as Json).trust).toMatchObject({ version: 2 });

    // B keeps A as a peer and dials it (B listens for no peers: it only dials); both see the link.
    await nodeB.stop();
    const keyA = (JSON.parse(cliA('peer', 'self', '--json').stdout) as Json).key as string;
    const addedPeer = cliB('peer', 'add', addrA);
    expect(addedPeer.status, addedPeer.stderr).toBe(0);
    expect(addedPeer.stdout).toContain(`Added ${keyA} at ${addrA}; the hub dials it now`);
    const stateOf = (cli: typeof cliA, key: string) => (JSON.parse(cli('peer', 'list', '--json').stdout) as Json[]).find((peer) => peer.key === key)?.state;
    await expect.poll(() => stateOf(cliB, keyA), { timeout: 20_000, interval: 200 }).toBe('connected');
    await expect.poll(() => stateOf(cliA, peerB.key as string), { timeout: 20_000, interval: 200 }).toBe('connected');
    const listed = cliB('peer', 'list');
    expect(listed.stdout).toMatch(new RegExp(`^connected +\\S+ ${keyA} at ${addrA.replace(/[/.]/g, '\\$&')}`, 'm'));
    expect(listed.stdout).toContain('hosts @boss');
    // doctor: B's listener (none: it dials), its hub entry in the roster, its kept peer linked;
    // and both hubs run on this machine under its host name, which doctor says they must not.
    const peersOf = (cli: typeof cliA) => (JSON.parse(cli('doctor', '--json').stdout) as { checks: Array<{ name: string; ok: boolean; detail: string }> }).checks.find((c) => c.name === 'peers');
    const sameName = (other: string) => new RegExp(`; this hub, ${other} share the name "[^"]+": give each hub its own \\(peers\\.name, or PARLEY_PEERS_NAME\\)`);
    expect(peersOf(cliB)).toMatchObject({ ok: false, detail: expect.stringMatching(/^not listening for peers; 1 kept, 1 linked; /) });
    expect(peersOf(cliB)!.detail).toMatch(sameName(keyA));
    expect(peersOf(cliA)).toMatchObject({ ok: false, detail: expect.stringMatching(/^listening on \/ip4\/127\.0\.0\.1\/tcp\/\d+\/p2p\/\w+; 0 kept, 1 linked; /) });
    expect(peersOf(cliA)!.detail).toMatch(sameName(peerB.key as string));
  }, 90_000);

  it('roster hubs - with no hub running, peer add keeps the peer in the home, list shows it offline, remove forgets it', async () => {
    const dir = home();
    const other = home();
    const b = await startServe(other, { args: ['--peer-port', '0', '--peer-host', '127.0.0.1'] });
    const addrB = (JSON.parse(cliAt(other, b.url)('peer', 'self', '--json').stdout) as Json).addrs[0] as string;
    const cli = cliAt(dir, 'http://127.0.0.1:1');
    const added = cli('peer', 'add', addrB);
    expect(added.status, added.stderr).toBe(0);
    expect(added.stdout).toContain('no hub runs on this home: "parley serve" dials it');
    expect(cli('peer', 'add', addrB).stdout).toContain('Already kept:');
    const listed = JSON.parse(cli('peer', 'list', '--json').stdout) as Json[];
    expect(listed).toEqual([expect.objectContaining({ addrs: [addrB], state: 'offline', reason: 'no hub runs on this home', configured: true })]);
    const doctor = JSON.parse(cli('doctor', '--json').stdout) as { checks: Array<{ name: string; ok: boolean; detail: string }> };
    expect(doctor.checks.find((c) => c.name === 'peers')).toMatchObject({ ok: false, detail: expect.stringContaining('1 kept, no hub runs to link them; no roster is in force (local mode)') });
    const bad = cli('peer', 'add', '/ip4/127.0.0.1/tcp/1');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('Invalid addr');
    expect(cli('peer', 'add').stderr).toContain('Name the hub\'s address');
    const removed = cli('peer', 'remove', listed[0]!.key as string);
    expect(removed.status, removed.stderr).toBe(0);
    expect(removed.stdout).toBe(`Removed ${addrB}.\n`);
    const again = cli('peer', 'remove', addrB);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('No peer');
    expect(JSON.parse(cli('peer', 'list', '--json').stdout)).toEqual([]);
  }, 60_000);

  it('roster hubs - with no hub running, import writes the roster file on the hub\'s terms; a rollback or a bad file changes nothing', async () => {
    const homeA = home();
    const a = await startServe(homeA);
    expect(cliAt(homeA, a.url)('roster', 'init', '--org', 'acme').status).toBe(0);
    const fileA = path.join(homeA, 'roster.json');
    const homeC = home();
    const cliC = cliAt(homeC, 'http://127.0.0.1:1');
    const first = cliC('roster', 'import', fileA);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain('no hub runs on this home');
    expect(fs.readFileSync(path.join(homeC, 'roster.json'), 'utf8')).toBe(fs.readFileSync(fileA, 'utf8'));
    const again = cliC('roster', 'import', fileA);
    expect(again.status).not.toBe(0);
    expect(again.stderr).toContain('Not imported');
    expect(again.stderr).toContain('is unchanged');
    const bad = path.join(homeC, 'bad.json');
    fs.writeFileSync(bad, '{"org_id":"acme"}');
    const refused = cliC('roster', 'import', bad);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('version');
    expect(cliC('roster', 'import').stderr).toContain('Name the roster file to import');
    expect(fs.readFileSync(path.join(homeC, 'roster.json'), 'utf8')).toBe(fs.readFileSync(fileA, 'utf8'));
  }, 60_000);

  it('roster hubs - a file that is not what peer self wrote is refused naming the field, and no draft is written', () => {
    const dir = home();
    const cli = cliAt(dir, 'http://127.0.0.1:1');
    expect(cli('roster', 'init', '--org', 'acme').status).toBe(0);
    const file = path.join(dir, 'peer.json');
    const cases: Array<[unknown, string]> = [
      [{ key: 'ed25519:nope', id: 'h_x', name: 'b', addrs: [], participants: [] }, 'Invalid --from'],
      [{ key: `ed25519:${'A'.repeat(43)}`, id: `h_${'a'.repeat(26)}`, name: 'b', addrs: [], participants: [] }, 'is not the id of its key'],
      [{ key: `ed25519:${'A'.repeat(43)}`, id: `h_${'a'.repeat(26)}`, name: 'b', addrs: [], participants: [{ handle: 'x', key: 'k', kind: 'robot' }] }, 'field participants.0'],
    ];
    for (const [doc, message] of cases) {
      fs.writeFileSync(file, JSON.stringify(doc));
      const run = cli('roster', 'add', '--from', file);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(message);
      expect(fs.existsSync(path.join(dir, 'roster.draft.json'))).toBe(false);
    }
    fs.writeFileSync(file, 'not json');
    expect(cli('roster', 'add', '--from', file).stderr).toContain('not JSON');
    expect(cli('roster', 'add', '--from', path.join(dir, 'missing.json')).stderr).toContain('Cannot read --from');
  }, 60_000);
});
