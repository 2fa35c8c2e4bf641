import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readPeerBook } from '../../src/home/peer-book.js';
import { testHubsClosedAfterEach } from '../helpers/hub.js';
import { linkState, openPeerHubs, rosterOfHubs, startLinks } from '../helpers/peer-hubs.js';

/**
 * Hubs linked over libp2p on loopback TCP, in one process: kept peers, the
 * signed hello, the roster's rules for who links, and hubs learning of each
 * other through the ones they are linked to.
 */
const hubs = testHubsClosedAfterEach();

describe('peer links', () => {
  it('peer links - a kept peer is dialled, the hellos tell each side who the other is, and the peer is kept in the home', async () => {
    const [a, b] = await openPeerHubs(hubs, 2);
    await b!.t.hub.join({ handle: 'bea', session: 's' });
    const { link, added } = await a!.links.add(b!.addr);
    expect(added).toBe(true);
    expect(link.key).toBe(b!.key);
    await expect.poll(() => linkState(a!, b!), { timeout: 10_000 }).toBe('connected');
    await expect.poll(() => linkState(b!, a!), { timeout: 10_000 }).toBe('connected');
    const seen = a!.links.list().find((peer) => peer.key === b!.key)!;
    expect(seen).toMatchObject({ name: b!.t.hub.peerIdentity().name, configured: true, queued: 0, drops: {}, reason: null });
    expect(seen.participants).toEqual([{ handle: 'bea', key: expect.stringMatching(/^ed25519:/), kind: 'agent' }]);
    expect(seen.lastSeen).not.toBeNull();
    expect(b!.links.list().find((peer) => peer.key === a!.key)).toMatchObject({ configured: false, state: 'connected' });
    expect(readPeerBook(a!.t.home)).toEqual([{ addr: b!.addr, key: b!.key, added: expect.any(String) }]);
    expect(fs.statSync(`${a!.t.home}/peers.json`).mode & 0o777).toBe(0o600);
    // Adding it again keeps one entry.
    expect((await a!.links.add(b!.addr)).added).toBe(false);
    expect(readPeerBook(a!.t.home)).toHaveLength(1);
  }, 30_000);

  it('peer links - adding one peer links every hub: a hub learns the others from the hellos of the ones it links to', async () => {
    const [a, b, c] = await openPeerHubs(hubs, 3);
    await b!.links.add(c!.addr);
    await expect.poll(() => linkState(b!, c!), { timeout: 10_000 }).toBe('connected');
    await a!.links.add(b!.addr);
    await expect.poll(() => linkState(a!, c!), { timeout: 10_000 }).toBe('connected');
    await expect.poll(() => linkState(c!, a!), { timeout: 10_000 }).toBe('connected');
    expect(a!.links.list().find((peer) => peer.key === c!.key)?.configured).toBe(false);
  }, 30_000);

  it('peer links - a hub learned from a hello is kept as learned: after a restart it is dialled even while the hub that named it is away', async () => {
    const [a, b, c] = await openPeerHubs(hubs, 3);
    await b!.links.add(c!.addr);
    await expect.poll(() => linkState(b!, c!), { timeout: 10_000 }).toBe('connected');
    await a!.links.add(b!.addr);
    await expect.poll(() => linkState(a!, c!), { timeout: 10_000 }).toBe('connected');
    await expect.poll(() => readPeerBook(a!.t.home).filter((entry) => entry.learned).map((entry) => entry.key), { timeout: 10_000 }).toEqual([c!.key]);
    expect(readPeerBook(a!.t.home).filter((entry) => !entry.learned).map((entry) => entry.addr)).toEqual([b!.addr]);
    // b, the one hub a was told of, is away; a starts again and links to c all the same.
    await b!.links.stop();
    await a!.links.stop();
    const again = await startLinks(hubs, a!.t);
    await expect.poll(() => linkState(again, c!), { timeout: 10_000 }).toBe('connected');
    expect(again.links.list().find((peer) => peer.key === c!.key)?.configured).toBe(false);
    // Added by hand now, the learned address becomes a kept one.
    const [learned] = readPeerBook(a!.t.home).filter((entry) => entry.learned);
    expect((await again.links.add(learned!.addr)).added).toBe(true);
    expect(readPeerBook(a!.t.home).map((entry) => [entry.key, entry.learned ?? false])).toEqual([[b!.key, false], [c!.key, false]]);
  }, 30_000);

  it('peer links - a hub of another org is refused on both sides with the reason; a hub the roster does not list is refused before any hello', async () => {
    const [a] = await openPeerHubs(hubs, 1);
    // A hub of another org, and each roster lists the other's hub: the gaters let them through, the hellos do not.
    const other = await hubs.open();
    await other.hub.acceptRoster(rosterOfHubs([other, a!.t], 'elsewhere'));
    await a!.t.hub.acceptRoster(rosterOfHubs([a!.t, other], 'team', 2));
    const o = await startLinks(hubs, other);
    await o.links.add(a!.addr);
    await expect.poll(() => a!.links.list().find((peer) => peer.key === o.key)?.drops['other-org'] ?? 0, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    expect(linkState(a!, o)).toBe('refused');
    expect(a!.links.list().find((peer) => peer.key === o.key)?.reason).toBe('it is a hub of org "elsewhere", this hub\'s roster is org "team"');
    await expect.poll(() => linkState(o, a!), { timeout: 10_000 }).toBe('refused');
    const refused = o.links.list().find((peer) => peer.key === a!.key)!;
    expect(refused.reason).toBe('refused by the peer: it is a hub of org "elsewhere", this hub\'s roster is org "team"');
    expect(refused.drops['other-org']).toBeGreaterThanOrEqual(1);

    // A hub whose roster lists a, but a's does not list it: a's gater refuses it before any Parley protocol.
    const stranger = await hubs.open();
    await stranger.hub.acceptRoster(rosterOfHubs([stranger, a!.t], 'team'));
    const s = await startLinks(hubs, stranger);
    await s.links.add(a!.addr);
    await expect.poll(() => a!.links.list().find((peer) => peer.key === s.key)?.drops['not-in-roster'] ?? 0, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    expect(linkState(a!, s)).toBe('refused');
    await expect.poll(() => linkState(s, a!), { timeout: 10_000 }).toBe('refused');
    expect(s.links.list().find((peer) => peer.key === a!.key)?.reason).toMatch(/^no hello from the peer \(.*\): it may not list this hub in its roster$/);
  }, 30_000);

  it('peer links - a removed peer is forgotten and its link closed; as a hub of the roster it may dial back, and is not kept', async () => {
    const [a, b] = await openPeerHubs(hubs, 2);
    await a!.links.add(b!.addr);
    await expect.poll(() => linkState(a!, b!), { timeout: 10_000 }).toBe('connected');
    await expect.poll(() => linkState(b!, a!), { timeout: 10_000 }).toBe('connected');
    const closedBefore = b!.logger.records.filter((r) => r.msg === 'peer link closed').length;
    expect(await a!.links.remove(b!.key)).toEqual([b!.addr]);
    expect(readPeerBook(a!.t.home)).toEqual([]);
    await expect.poll(() => b!.logger.records.filter((r) => r.msg === 'peer link closed').length, { timeout: 10_000 }).toBe(closedBefore + 1);
    // b knows where a listens (its hello said): it dials back, and a takes it as any hub of the roster, not kept.
    await expect.poll(() => linkState(a!, b!), { timeout: 10_000 }).toBe('connected');
    expect(a!.links.list().find((peer) => peer.key === b!.key)?.configured).toBe(false);
    expect(await a!.links.remove(b!.key)).toEqual([]);
  }, 30_000);

  it('peer links - a newer roster a peer holds is taken on the roster\'s rules, and a hub it leaves out is cut off', async () => {
    const [a, b, c] = await openPeerHubs(hubs, 3);
    await a!.links.add(b!.addr);
    await a!.links.add(c!.addr);
    await expect.poll(() => linkState(a!, c!), { timeout: 10_000 }).toBe('connected');
    await expect.poll(() => linkState(a!, b!), { timeout: 10_000 }).toBe('connected');
    // Version 2 drops c. b's operator puts it in force; b's new hello tells a, which fetches it from b.
    const v2 = rosterOfHubs([a!.t, b!.t], 'team', 2);
    await b!.t.hub.acceptRoster(v2);
    await expect.poll(() => a!.t.hub.roster().current?.version, { timeout: 10_000 }).toBe(2);
    await expect.poll(() => linkState(a!, c!), { timeout: 10_000 }).toBe('refused');
    expect(a!.links.list().find((peer) => peer.key === c!.key)?.drops['removed-from-roster']).toBe(1);
  }, 30_000);

  it('peer links - the kept peers are dialled again when the hub starts again', async () => {
    const [a, b] = await openPeerHubs(hubs, 2);
    await a!.links.add(b!.addr);
    await expect.poll(() => linkState(a!, b!), { timeout: 10_000 }).toBe('connected');
    await a!.links.stop();
    await expect.poll(() => linkState(b!, a!), { timeout: 10_000 }).toBe('offline');
    const again = await startLinks(hubs, a!.t);
    expect(again.links.list().map((peer) => [peer.key, peer.configured])).toEqual([[b!.key, true]]);
    await expect.poll(() => linkState(again, b!), { timeout: 10_000 }).toBe('connected');
  }, 30_000);
});
