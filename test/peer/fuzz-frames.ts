import type { Ed25519PrivateKey } from '@libp2p/interface';
import fc from 'fast-check';
import type { Hub } from '../../src/hub/index.js';
import { encodeHello, type HostedParticipant } from '../../src/peer/hello.js';
import { canonicalEncode } from '../../src/trust/cbor.js';
import { parsePublicKey, privateKeyFromSeed } from '../../src/trust/node-id.js';

/** What the peer-protocol fuzz tests send: arbitrary bytes, or the canonical CBOR of an arbitrary value. */
export function arbitraryFrame(maxLength: number, minLength = 0): fc.Arbitrary<Uint8Array> {
  return fc.oneof(fc.uint8Array({ minLength, maxLength }), fc.anything().map((value) => safeEncode(value)));
}

/** The canonical CBOR of any value that has one, else some bytes. */
function safeEncode(value: unknown): Uint8Array {
  try {
    return canonicalEncode(value);
  } catch {
    return Uint8Array.from([0xff]);
  }
}

/** A good hello from a hand-made peer holding `peerKey`, named "fuzzer", for the hub `to` (its key text) under `hub`'s roster (or saying it holds `rosterVersion`). */
export function fuzzerHello(hub: Hub, peerKey: Ed25519PrivateKey, to: string, participants: HostedParticipant[] = [], rosterVersion?: number): Uint8Array {
  const roster = hub.roster().current!;
  return encodeHello(
    {
      org: roster.org_id,
      rosterVersion: rosterVersion ?? roster.version,
      key: peerKey.publicKey.raw,
      name: 'fuzzer',
      to: parsePublicKey(to),
      ts: Date.now(),
      participants,
      addrs: [],
      known: [],
    },
    privateKeyFromSeed(peerKey.raw.subarray(0, 32)),
  );
}
