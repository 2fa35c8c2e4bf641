import crypto from 'node:crypto';
import { encode, rfc8949EncodeOptions } from 'cborg';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SIGNED_EVENT_DOMAIN } from '../../src/schema/envelope.js';
import {
  decodeEventTuple,
  eventFieldsFromJson,
  eventFieldsToJson,
  eventSigningBytes,
  signEvent,
  verifyEvent,
  type SignedEventFields,
} from '../../src/trust/envelope.js';
import { refusal } from '../helpers/refusal.js';
import { changedField, sampleFields, signedFields, testKey } from './arbitraries.js';

const alice = testKey(1);
const bob = testKey(2);

describe('signed events: round trips', () => {
  it('envelope - an event signed by its author verifies with the author’s key, as a KeyObject or raw bytes', () => {
    const fields = sampleFields();
    const sig = signEvent(alice.privateKey, fields);
    expect(sig).toHaveLength(64);
    expect(verifyEvent(fields, sig)).toBe(true);
    expect(verifyEvent(fields, sig, alice.raw)).toBe(true);
    expect(verifyEvent(fields, sig, crypto.createPublicKey(alice.privateKey))).toBe(true);
  });

  it('envelope - the signature is Ed25519 over the CBOR bytes themselves, with no pre-hash', () => {
    const fields = sampleFields();
    const bytes = eventSigningBytes(fields);
    expect(Buffer.from(signEvent(alice.privateKey, fields))).toEqual(crypto.sign(null, bytes, alice.privateKey));
    expect(crypto.verify(null, crypto.createHash('sha256').update(bytes).digest(), crypto.createPublicKey(alice.privateKey), signEvent(alice.privateKey, fields))).toBe(false);
  });

  it('envelope - another key’s signature, or a signature of the wrong length, does not verify', () => {
    const fields = sampleFields();
    expect(verifyEvent(fields, signEvent(bob.privateKey, fields))).toBe(false);
    expect(verifyEvent(fields, signEvent(alice.privateKey, fields), bob.raw)).toBe(false);
    expect(verifyEvent(fields, signEvent(alice.privateKey, fields).subarray(0, 63))).toBe(false);
  });

  it('envelope - the bytes decode back to the same fields, and the JSON form round-trips', () => {
    const fields = sampleFields({ to: bob.raw, kind: 'request', content: { intent: 'review', params: { lines: [1, -2, 0.5] }, hop: 0 } });
    const decoded = decodeEventTuple(eventSigningBytes(fields));
    expect(decoded).toEqual({ ...fields, from: new Uint8Array(fields.from), to: new Uint8Array(bob.raw), sender_epoch: new Uint8Array(fields.sender_epoch) });
    expect(eventFieldsFromJson(JSON.parse(JSON.stringify(eventFieldsToJson(fields))))).toEqual(fields);
  });

  it('envelope - an empty meta map is signed as null, so both spellings of “no meta” carry one signature', () => {
    expect(eventSigningBytes(sampleFields({ meta: {} }))).toEqual(eventSigningBytes(sampleFields({ meta: null })));
  });

  it('envelope - -0 in content is signed as 0', () => {
    const fields = sampleFields({ kind: 'control', content: { n: -0 } });
    expect(eventSigningBytes(fields)).toEqual(eventSigningBytes({ ...fields, content: { n: 0 } }));
  });

  it('envelope - fields that cannot be signed are refused naming the field', () => {
    expect(refusal(() => eventSigningBytes(sampleFields({ from: Buffer.alloc(31) }))).field).toBe('from');
    expect(refusal(() => eventSigningBytes(sampleFields({ sender_epoch: Buffer.alloc(8) }))).field).toBe('sender_epoch');
    expect(refusal(() => eventSigningBytes(sampleFields({ kind: 'message', content: { text: 'x' } }))).field).toBe('content');
    expect(refusal(() => eventSigningBytes(sampleFields({ kind: 'control', content: { pause: { until: undefined } } }))).field).toBe('content.pause.until');
    expect(refusal(() => eventSigningBytes(sampleFields({ kind: 'control', content: [1, Number.NaN] }))).field).toBe('content.1');
    expect(refusal(() => eventSigningBytes(sampleFields({ meta: { tags: [10n] } as never }))).field).toBe('meta.tags.0');
    expect(refusal(() => eventSigningBytes(sampleFields({ ts: -1 }))).field).toBe('ts');
    expect(refusal(() => eventSigningBytes(sampleFields({ sender_seq: 2 ** 53 }))).field).toBe('sender_seq');
    expect(refusal(() => eventSigningBytes(sampleFields({ ttl_secs: 1.5 }))).field).toBe('ttl_secs');
    // Content nested past what a decoder accepts is refused when signing, not signed into bytes no peer can read.
    let deep: unknown = 0;
    for (let i = 0; i < 5000; i++) deep = [deep];
    const error = refusal(() => eventSigningBytes(sampleFields({ kind: 'control', content: deep })));
    expect(error.message).toContain('deeper than 128');
    expect(error.field).toBe(`content${'.0'.repeat(127)}`);
  });

  it('encode - a "__proto__" key, which a copy of the value would turn into its prototype, is refused in signed data, however it comes', () => {
    // JSON.parse makes it an own key, as a request's params from any client would have it.
    const forged = JSON.parse('{"intent":"deploy","params":{"__proto__":{"approved":true}}}') as unknown;
    const signing = refusal(() => eventSigningBytes(sampleFields({ kind: 'request', content: forged })));
    expect(signing).toMatchObject({ code: 'INVALID_INPUT', field: 'content.params.__proto__' });
    expect(signing.message).toContain('a map key "__proto__" is not allowed');
    // Bytes written elsewhere (cborg's own RFC 8949 encoding) with such a key: refused on reading, naming it.
    const tuple = [SIGNED_EVENT_DOMAIN, ...Object.values(sampleFields({ kind: 'request', content: forged }))];
    const decoding = refusal(() => decodeEventTuple(encode(tuple, rfc8949EncodeOptions)));
    expect(decoding).toMatchObject({ code: 'INVALID_INPUT', field: 'event' });
    expect(decoding.message).toContain('event.6.params.__proto__: a map key "__proto__" is not allowed');
  });
});

/** One test per signed field: change it after signing, and the signature no longer verifies. */
describe('signed events: tampering with any one field is detected', () => {
  const fields = sampleFields({ to: bob.raw });
  const sig = signEvent(alice.privateKey, fields);
  const cases: [string, Partial<SignedEventFields>][] = [
    ['id', { id: '01KAPM5S0000000000000000A3' }],
    ['from', { from: bob.raw }],
    ['thread', { thread: '01KAPM5S0000000000000000T2' }],
    ['to', { to: null }],
    ['kind', { kind: 'system' }],
    ['content', { content: 'Plan the cache layer, @coder-2' }],
    ['meta', { meta: { tags: ['plan'], reply_to: '01KAPM5S0000000000000000A0' } }],
    ['ts', { ts: fields.ts + 1 }],
    ['ttl_secs', { ttl_secs: 3600 }],
    ['sender_seq', { sender_seq: 6 }],
    ['sender_epoch', { sender_epoch: Buffer.alloc(16, 0xac) }],
  ];
  it.each(cases)('tamper - changing %s fails verification', (_name, change) => {
    expect(verifyEvent(fields, sig)).toBe(true);
    expect(verifyEvent({ ...fields, ...change }, sig, alice.raw)).toBe(false);
  });

  it('tamper - domain: a signature over the same tuple under another domain does not verify, and such bytes do not decode', () => {
    const tuple = [
      'parley/event/v0',
      fields.id,
      fields.from,
      fields.thread,
      fields.to,
      fields.kind,
      fields.content,
      fields.meta,
      fields.ts,
      fields.ttl_secs,
      fields.sender_seq,
      fields.sender_epoch,
    ];
    const otherDomain = encode(tuple);
    expect(verifyEvent(fields, crypto.sign(null, otherDomain, alice.privateKey))).toBe(false);
    const error = refusal(() => decodeEventTuple(otherDomain));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.field).toBe('domain');
    expect(error.message).toContain(SIGNED_EVENT_DOMAIN);
  });
});

describe('signed events: properties', () => {
  it('property - any valid fields sign, verify and decode back', () => {
    fc.assert(
      fc.property(signedFields, (fields) => {
        const sig = signEvent(alice.privateKey, fields);
        expect(verifyEvent(fields, sig, alice.raw)).toBe(true);
        expect(eventSigningBytes(decodeEventTuple(eventSigningBytes(fields)))).toEqual(eventSigningBytes(fields));
      }),
      { numRuns: 200 },
    );
  });

  it('property - changing any signed field, or any bit of the signature, fails verification', () => {
    fc.assert(
      fc.property(signedFields, fc.nat({ max: 10 }), fc.nat(), fc.nat({ max: 63 }), fc.integer({ min: 1, max: 255 }), (fields, which, seed, at, xor) => {
        const sig = signEvent(alice.privateKey, fields);
        expect(verifyEvent(changedField(fields, which, seed), sig, alice.raw)).toBe(false);
        const badSig = Buffer.from(sig);
        badSig[at] = (badSig[at] ?? 0) ^ xor;
        expect(verifyEvent(fields, badSig, alice.raw)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe('signed events: decoding errors name the position', () => {
  const good = sampleFields();
  const tupleOf = (f: SignedEventFields): unknown[] => [SIGNED_EVENT_DOMAIN, f.id, f.from, f.thread, f.to, f.kind, f.content, f.meta, f.ts, f.ttl_secs, f.sender_seq, f.sender_epoch];

  it('decode - a wrong type at a position is named by field', () => {
    const tuple = tupleOf(good);
    tuple[2] = Buffer.alloc(31);
    expect(refusal(() => decodeEventTuple(encode(tuple))).field).toBe('from');
    const tuple2 = tupleOf(good);
    tuple2[6] = { not: 'text' };
    const error = refusal(() => decodeEventTuple(encode(tuple2)));
    expect(error.field).toBe('content');
    expect(error.message).toContain('position 6');
    const tuple3 = tupleOf(good);
    tuple3[7] = {};
    expect(refusal(() => decodeEventTuple(encode(tuple3))).field).toBe('meta');
  });

  it('decode - the wrong number of items, or not an array, is refused', () => {
    expect(refusal(() => decodeEventTuple(encode(tupleOf(good).slice(0, 11)))).field).toBe('event');
    expect(refusal(() => decodeEventTuple(encode([...tupleOf(good), 1]))).field).toBe('event');
    expect(refusal(() => decodeEventTuple(encode({ domain: SIGNED_EVENT_DOMAIN }))).field).toBe('event');
  });

  it('decode - an envelope over the size cap is refused before decoding', () => {
    const big = eventSigningBytes(sampleFields({ content: 'x'.repeat(2000) }));
    const error = refusal(() => decodeEventTuple(big, { maxBytes: 1000 }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain('1000');
  });
});
