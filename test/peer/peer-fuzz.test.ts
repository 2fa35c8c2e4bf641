import '../../src/peer/promise-with-resolvers.js';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { generateKeyPair } from '@libp2p/crypto/keys';
import type { Stream } from '@libp2p/interface';
import { lpStream } from '@libp2p/utils';
import { tcp } from '@libp2p/tcp';
import { multiaddr } from '@multiformats/multiaddr';
import fc from 'fast-check';
import { createLibp2p, type Libp2p } from 'libp2p';
import { describe, expect, it } from 'vitest';
import { decodeHello, HELLO_PROTOCOL, HelloRefused, MAX_HELLO_BYTES } from '../../src/peer/hello.js';
import { decodeRefusal } from '../../src/peer/refusal.js';
import { formatPublicKey } from '../../src/trust/node-id.js';
import { testHubsClosedAfterEach } from '../helpers/hub.js';
import { rosterOfHubs, startLinks } from '../helpers/peer-hubs.js';
import { arbitraryFrame, fuzzerHello } from './fuzz-frames.js';

/**
 * The hello protocol driven with arbitrary frames, from a hub the roster
 * lists: each is refused (a refusal frame, or the stream reset when the frame
 * cannot even be read), counted by reason on the hub, nothing of it kept,
 * and a good hello on the same kind of link still makes the link.
 */
const hubs = testHubsClosedAfterEach();

describe('peer protocol fuzz', () => {
  it('fuzz - decoding arbitrary bytes as a hello only ever refuses it, with a reason', () => {
    const self = new Uint8Array(32).fill(1);
    const from = new Uint8Array(32).fill(2);
    fc.assert(
      fc.property(arbitraryFrame(600), (bytes) => {
        try {
          decodeHello(bytes, { from, self, now: Date.now() });
        } catch (error) {
          expect(error).toBeInstanceOf(HelloRefused);
          expect(['bad-hello', 'clock-skew']).toContain((error as HelloRefused).reason);
          return;
        }
        throw new Error('an arbitrary frame was taken as a hello');
      }),
      { numRuns: 2000 },
    );
  });

  it('fuzz - arbitrary, oversized and truncated hello frames over a real link are refused and counted; a good hello then links', async () => {
    const t = await hubs.open();
    const peerKey = await generateKeyPair('Ed25519');
    const peerKeyText = formatPublicKey(peerKey.publicKey.raw);
    const extra = [{ pubkey: peerKeyText, role: 'member' as const, kind: 'hub' as const }];
    await t.hub.acceptRoster(rosterOfHubs([t], 'team', 1, extra));
    const a = await startLinks(hubs, t);
    const node: Libp2p = await createLibp2p({ privateKey: peerKey, transports: [tcp()], connectionEncrypters: [noise()], streamMuxers: [yamux()] });
    hubs.defer(() => node.stop());
    const dropsOf = () => a.links.list().find((peer) => peer.key === peerKeyText)?.drops ?? {};
    const participantsBefore = t.hub.participants().length;

    const frames = fc.sample(arbitraryFrame(400, 1), { numRuns: 25, seed: 27 });
    let refusals = 0;
    for (const frame of frames) {
      const stream = await openHello(node, a.addr);
      const answer = await sendAndRead(stream, frame);
      // A frame it could read is answered with a refusal saying why.
      expect(answer === 'reset' || decodeRefusal(answer)?.reason === 'bad-hello', String(answer)).toBe(true);
      if (answer !== 'reset') refusals += 1;
    }
    // Every frame was read whole and refused as a bad hello (an answer can be lost as the hub closes the link).
    expect(refusals).toBeGreaterThan(frames.length / 2);
    await expect.poll(() => dropsOf()['bad-hello'] ?? 0, { timeout: 10_000 }).toBe(frames.length);

    // Longer than any hello may be: refused before it is read whole.
    const oversized = await openHello(node, a.addr);
    const longFrame = lpStream(oversized, { maxDataLength: MAX_HELLO_BYTES * 2 });
    await longFrame.write(new Uint8Array(MAX_HELLO_BYTES + 1)).catch(() => undefined);
    await expect.poll(() => dropsOf()['malformed-frame'] ?? 0, { timeout: 10_000 }).toBe(1);
    // Cut short: a length that promises more than comes, then the stream ends.
    const truncated = await openHello(node, a.addr);
    truncated.send(Uint8Array.from([0x80, 0x01, 0xa1]));
    await truncated.close();
    await expect.poll(() => dropsOf()['malformed-frame'] ?? 0, { timeout: 10_000 }).toBe(2);
    expect(a.links.list().find((peer) => peer.key === peerKeyText)?.state).toBe('refused');
    expect(t.hub.participants()).toHaveLength(participantsBefore);

    // The link recovers: a good hello, signed by the peer's key, for this hub.
    const hello = fuzzerHello(t.hub, peerKey, a.key);
    const good = await sendAndRead(await openHello(node, a.addr), hello);
    expect(good).not.toBe('reset');
    expect(decodeRefusal(good as Uint8Array)).toBeUndefined();
    await expect.poll(() => a.links.list().find((peer) => peer.key === peerKeyText)?.state, { timeout: 10_000 }).toBe('connected');
    expect(a.links.list().find((peer) => peer.key === peerKeyText)?.name).toBe('fuzzer');
  }, 60_000);
});

async function openHello(node: Libp2p, addr: string): Promise<Stream> {
  return node.dialProtocol(multiaddr(addr), HELLO_PROTOCOL, { signal: AbortSignal.timeout(10_000) });
}

/** Writes one frame and reads the answer; 'reset' when the stream ends without one. */
async function sendAndRead(stream: Stream, frame: Uint8Array): Promise<Uint8Array | 'reset'> {
  const framed = lpStream(stream, { maxDataLength: MAX_HELLO_BYTES });
  try {
    await framed.write(frame, { signal: AbortSignal.timeout(10_000) });
    return (await framed.read({ signal: AbortSignal.timeout(10_000) })).subarray();
  } catch {
    return 'reset';
  }
}
