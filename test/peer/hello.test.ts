import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeHello, encodeHello, HELLO_CLOCK_SKEW_MS, HelloRefused, type Hello } from '../../src/peer/hello.js';
import { canonicalEncode } from '../../src/trust/cbor.js';
import { rawPublicKeyOf } from '../../src/trust/node-id.js';

/** The signed hello two hubs exchange, checked as the receiving hub checks it. */
function keyPair(): { privateKey: crypto.KeyObject; raw: Uint8Array } {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
  return { privateKey, raw: rawPublicKeyOf(publicKey) };
}

const now = Date.parse('2026-11-28T10:00:00Z');
const a = keyPair();
const b = keyPair();
const c = keyPair();

function helloFromAToB(overrides: Partial<Hello> = {}): Hello {
  return {
    org: 'team',
    rosterVersion: 3,
    key: a.raw,
    name: 'laptop',
    to: b.raw,
    ts: now,
    participants: [{ key: c.raw, handle: 'alice', kind: 'agent' }],
    addrs: ['/ip4/127.0.0.1/tcp/4001/p2p/12D3KooWExample'],
    known: [{ key: c.raw, addrs: ['/ip4/10.0.0.3/tcp/4001'] }],
    ...overrides,
  };
}

function refusal(run: () => unknown): HelloRefused {
  try {
    run();
  } catch (error) {
    if (error instanceof HelloRefused) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('peer hello', () => {
  it('hello - what a hub signs for another is read back whole by it', () => {
    const hello = helloFromAToB();
    const read = decodeHello(encodeHello(hello, a.privateKey), { from: a.raw, self: b.raw, now: now + 1000 });
    const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
    expect([read.org, read.rosterVersion, read.name, read.ts, read.addrs]).toEqual(['team', 3, 'laptop', now, hello.addrs]);
    expect([hex(read.key), hex(read.to)]).toEqual([hex(a.raw), hex(b.raw)]);
    expect(read.participants.map((p) => [hex(p.key), p.handle, p.kind])).toEqual([[hex(c.raw), 'alice', 'agent']]);
    expect(read.known.map((k) => [hex(k.key), k.addrs])).toEqual([[hex(c.raw), ['/ip4/10.0.0.3/tcp/4001']]]);
  });

  it('hello - refused: signed by another key than the link\'s, made for another hub, naming another key, too old, garbage, over-long', () => {
    const frame = encodeHello(helloFromAToB(), a.privateKey);
    // The link is with c, but the hello is a's.
    expect(refusal(() => decodeHello(frame, { from: c.raw, self: b.raw, now })).message).toMatch(/signature is not by the key of the link/);
    // Passed on to c.
    expect(refusal(() => decodeHello(frame, { from: a.raw, self: c.raw, now })).message).toMatch(/made for another hub/);
    // Signed by a, naming c as its sender.
    expect(refusal(() => decodeHello(encodeHello(helloFromAToB({ key: c.raw }), a.privateKey), { from: a.raw, self: b.raw, now })).message).toMatch(/another hub key/);
    const stale = refusal(() => decodeHello(frame, { from: a.raw, self: b.raw, now: now + HELLO_CLOCK_SKEW_MS + 1 }));
    expect(stale.reason).toBe('clock-skew');
    expect(stale.message).toMatch(/clock is -60[01] s off/);
    expect(refusal(() => decodeHello(Buffer.from('not cbor at all'), { from: a.raw, self: b.raw, now })).reason).toBe('bad-hello');
    // Well-formed CBOR, wrong shape.
    expect(refusal(() => decodeHello(canonicalEncode(['parley/hello/v1', 'team']), { from: a.raw, self: b.raw, now })).reason).toBe('bad-hello');
    const many = Array.from({ length: 17 }, (_, i) => `/ip4/10.0.0.${i}/tcp/1`);
    expect(refusal(() => decodeHello(encodeHello(helloFromAToB({ addrs: many }), a.privateKey), { from: a.raw, self: b.raw, now })).reason).toBe('bad-hello');
  });
});
