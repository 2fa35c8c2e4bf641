import '../../src/peer/promise-with-resolvers.js';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { generateKeyPair } from '@libp2p/crypto/keys';
import type { PrivateKey } from '@libp2p/interface';
import { ping, type Ping } from '@libp2p/ping';
import { tcp } from '@libp2p/tcp';
import { multiaddr } from '@multiformats/multiaddr';
import { createLibp2p, type Libp2p } from 'libp2p';
import { afterEach, describe, expect, it } from 'vitest';
import { PeerNode } from '../../src/peer/index.js';
import { formatPublicKey } from '../../src/trust/node-id.js';
import { signRoster } from '../../src/trust/roster.js';
import { createMemoryLogger } from '../../src/util/logger.js';
import { testHubsClosedAfterEach } from '../helpers/hub.js';

/**
 * The peer node's gate, on real TCP on loopback: Noise shows which key the
 * other side holds, and before any protocol runs the hub refuses every key
 * the roster in force does not list (in local mode, every key). A listed
 * key gets through: here, a ping.
 */
const hubs = testHubsClosedAfterEach();
const stops: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function dialer(privateKey: PrivateKey): Promise<Libp2p<{ ping: Ping }>> {
  const node = await createLibp2p({ privateKey, transports: [tcp()], connectionEncrypters: [noise()], streamMuxers: [yamux()], services: { ping: ping() } });
  stops.push(() => node.stop());
  return node;
}

describe('peer gate', () => {
  it('peer gate - under a roster, a hub member links; an unlisted key and a participant\'s key are refused, counted by reason; the hub\'s own key never links', async () => {
    const logger = createMemoryLogger();
    const t = await hubs.open();
    const friendKey = await generateKeyPair('Ed25519');
    const strangerKey = await generateKeyPair('Ed25519');
    const memberKey = await generateKeyPair('Ed25519');
    const hubKeys = t.hub.internals.ctx.keys.hub();
    await t.hub.acceptRoster(
      signRoster(
        {
          org_id: 'team',
          version: 1,
          timestamp: '2026-11-27T12:00:00Z',
          members: [
            { pubkey: formatPublicKey(hubKeys.raw), role: 'admin' },
            { pubkey: formatPublicKey(friendKey.publicKey.raw), role: 'member', kind: 'hub' },
            // A participant's key, listed but not as a hub: it never links.
            { pubkey: formatPublicKey(memberKey.publicKey.raw), role: 'admin' },
          ],
          signatures: [],
        },
        hubKeys.privateKey,
      ),
    );
    const node = await PeerNode.start({ hub: t.hub, listen: ['/ip4/127.0.0.1/tcp/0'], logger });
    stops.push(() => node.stop());
    const [address] = node.addrs();
    expect(address).toMatch(new RegExp(`/p2p/${node.peerId}$`));

    const friend = await dialer(friendKey);
    const rtt = await friend.services.ping.ping(multiaddr(address!), { signal: AbortSignal.timeout(10_000) });
    expect(rtt).toBeGreaterThanOrEqual(0);

    const stranger = await dialer(strangerKey);
    await expect(stranger.services.ping.ping(multiaddr(address!), { signal: AbortSignal.timeout(10_000) })).rejects.toThrow();
    await expect.poll(() => node.refusals()['not-in-roster']).toBe(1);
    expect(node.refusals()['local-mode']).toBe(0);
    expect(logger.records.find((r) => r.msg === 'peer link refused')).toMatchObject({ level: 'warn', peer: stranger.peerId.toString(), reason: 'not-in-roster' });
    const participant = await dialer(memberKey);
    await expect(participant.services.ping.ping(multiaddr(address!), { signal: AbortSignal.timeout(10_000) })).rejects.toThrow();
    await expect.poll(() => node.refusals()['not-in-roster']).toBe(2);
    expect(t.hub.mayLink(hubKeys.raw)).toBe(false);
    expect(t.hub.mayLink(memberKey.publicKey.raw)).toBe(false);
    expect(t.hub.mayLink(friendKey.publicKey.raw)).toBe(true);
  }, 30_000);

  it('peer gate - in local mode every key is refused, even one a later roster would list', async () => {
    const logger = createMemoryLogger();
    const t = await hubs.open();
    const node = await PeerNode.start({ hub: t.hub, listen: ['/ip4/127.0.0.1/tcp/0'], logger });
    stops.push(() => node.stop());
    const someone = await dialer(await generateKeyPair('Ed25519'));
    await expect(someone.services.ping.ping(multiaddr(node.addrs()[0]!), { signal: AbortSignal.timeout(10_000) })).rejects.toThrow();
    await expect.poll(() => node.refusals()['local-mode']).toBe(1);
    expect(t.hub.mayLink(someone.peerId.publicKey!.raw)).toBe(false);
  }, 30_000);

  it('peer gate - a listen address the machine cannot take is refused naming peers.listen', async () => {
    const t = await hubs.open();
    await expect(PeerNode.start({ hub: t.hub, listen: ['/ip4/203.0.113.7/tcp/0'], logger: createMemoryLogger() })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      field: 'peers.listen',
      message: expect.stringContaining('The peer listener could not start on /ip4/203.0.113.7/tcp/0'),
    });
  }, 30_000);
});
