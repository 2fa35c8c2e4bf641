/**
 * The signed hello two hubs exchange on `/parley/hello/1` once Noise has
 * proved each side's key and the gater has found it in the roster: which
 * org and roster version each holds, its name, the participants it hosts,
 * where it listens, and the other hubs of the roster it is linked to (so a
 * team links every machine by adding one peer). It is signed by the hub's
 * key, names the hub it is for and when it was made, so a hello cannot be
 * passed on to another hub or kept for later.
 */

import type { KeyObject } from 'node:crypto';
import { z } from 'zod';
import { HandleSchema } from '../schema/names.js';
import { ParticipantKindSchema, type ParticipantKind } from '../schema/participant.js';
import { canonicalEncode, decodeStrict } from '../trust/cbor.js';
import { ed25519Sign, ed25519Verify } from '../trust/ed25519.mjs';
import { cachedPublicKey } from '../trust/node-id.js';

export const HELLO_PROTOCOL = '/parley/hello/1';
/** What the signature is over starts with this, so a hello's signature is good for nothing else. */
export const HELLO_DOMAIN = 'parley/hello/v1';
/** A hello is at most this large (a hub hosting 10,000 participants fits). */
export const MAX_HELLO_BYTES = 1024 * 1024;
/** How far a hello's time may be from this hub's clock. */
export const HELLO_CLOCK_SKEW_MS = 10 * 60 * 1000;

export interface HostedParticipant {
  key: Uint8Array;
  handle: string;
  kind: ParticipantKind;
}

export interface Hello {
  org: string;
  rosterVersion: number;
  /** The sending hub's key (raw). */
  key: Uint8Array;
  name: string;
  /** The key of the hub it is for (raw). */
  to: Uint8Array;
  /** When it was made (ms since the epoch). */
  ts: number;
  participants: HostedParticipant[];
  /** Where the sending hub listens. */
  addrs: string[];
  /** Other hubs it is linked to, and where they listen. */
  known: Array<{ key: Uint8Array; addrs: string[] }>;
}

/** Why a hello was refused: `bad-hello` (unreadable, unsigned, not for this hub, from another key than the link's), `clock-skew`. */
export class HelloRefused extends Error {
  constructor(
    readonly reason: 'bad-hello' | 'clock-skew',
    message: string,
  ) {
    super(message);
    this.name = 'HelloRefused';
  }
}

const RawKey = z.instanceof(Uint8Array).refine((bytes) => bytes.length === 32, 'must be a 32-byte Ed25519 key');
const Addrs = z.array(z.string().max(1024)).max(16);
const HelloTuple = z.tuple([
  z.literal(HELLO_DOMAIN),
  z.string().min(1).max(128),
  z.number().int().min(1),
  RawKey,
  z.string().max(64),
  RawKey,
  z.number().int().min(0),
  z.array(z.tuple([RawKey, HandleSchema, ParticipantKindSchema])).max(10_000),
  Addrs,
  z.array(z.tuple([RawKey, Addrs])).max(256),
]);
const HelloFrame = z.tuple([z.instanceof(Uint8Array), z.instanceof(Uint8Array).refine((sig) => sig.length === 64, 'must be a 64-byte signature')]);

/** The frame a hub sends: the hello's canonical CBOR and its signature by the hub's key. */
export function encodeHello(hello: Hello, privateKey: KeyObject): Uint8Array {
  const body = canonicalEncode(
    [
      HELLO_DOMAIN,
      hello.org,
      hello.rosterVersion,
      hello.key,
      hello.name,
      hello.to,
      hello.ts,
      hello.participants.map((p) => [p.key, p.handle, p.kind]),
      hello.addrs,
      hello.known.map((k) => [k.key, k.addrs]),
    ],
    'hello',
  );
  return canonicalEncode([body, ed25519Sign(body, privateKey)], 'hello');
}

/**
 * The hello in `frame`, checked: canonical, well formed, signed by `from`
 * (the key Noise proved for this link), made for `self`, and made within
 * HELLO_CLOCK_SKEW_MS of `now`. Anything else throws HelloRefused.
 */
export function decodeHello(frame: Uint8Array, expected: { from: Uint8Array; self: Uint8Array; now: number }): Hello {
  let body: Uint8Array;
  let tuple: z.output<typeof HelloTuple>;
  try {
    const [bytes, sig] = HelloFrame.parse(decodeStrict(frame, { maxBytes: MAX_HELLO_BYTES, what: 'hello' }));
    if (!ed25519Verify(bytes, cachedPublicKey(expected.from), sig)) throw new Error('its signature is not by the key of the link');
    body = bytes;
    tuple = HelloTuple.parse(decodeStrict(body, { maxBytes: MAX_HELLO_BYTES, what: 'hello' }));
  } catch (error) {
    throw new HelloRefused('bad-hello', `bad hello: ${error instanceof z.ZodError ? (error.issues[0]?.message ?? 'malformed') : (error as Error).message}`);
  }
  const [, org, rosterVersion, key, name, to, ts, participants, addrs, known] = tuple;
  if (!Buffer.from(key).equals(Buffer.from(expected.from))) throw new HelloRefused('bad-hello', 'bad hello: it names another hub key than the link\'s');
  if (!Buffer.from(to).equals(Buffer.from(expected.self))) throw new HelloRefused('bad-hello', 'bad hello: it was made for another hub');
  if (Math.abs(ts - expected.now) > HELLO_CLOCK_SKEW_MS) {
    throw new HelloRefused('clock-skew', `its clock is ${Math.round((ts - expected.now) / 1000)} s off this hub's (at most ${HELLO_CLOCK_SKEW_MS / 60_000} min allowed): set both machines' clocks right`);
  }
  return {
    org,
    rosterVersion,
    key,
    name,
    to,
    ts,
    participants: participants.map(([pKey, handle, kind]) => ({ key: pKey, handle, kind })),
    addrs,
    known: known.map(([kKey, kAddrs]) => ({ key: kKey, addrs: kAddrs })),
  };
}
