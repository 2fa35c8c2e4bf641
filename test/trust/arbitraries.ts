import fc from 'fast-check';
import type { SignedEventFields } from '../../src/trust/envelope.js';
import { privateKeyFromSeed, rawPublicKeyOf } from '../../src/trust/node-id.js';

/** Fixed test keys: Ed25519 is deterministic, so the same seed always gives the same key and signatures. */
export function testKey(fill: number) {
  const privateKey = privateKeyFromSeed(Buffer.alloc(32, fill));
  return { privateKey, raw: rawPublicKeyOf(privateKey) };
}

export function sampleFields(overrides: Partial<SignedEventFields> = {}): SignedEventFields {
  return {
    id: '01KAPM5S0000000000000000A2',
    from: testKey(1).raw,
    thread: '01KAPM5S0000000000000000T1',
    to: null,
    kind: 'message',
    content: 'Plan the cache layer, @coder-1',
    meta: { tags: ['plan'], reply_to: '01KAPM5S0000000000000000A1' },
    ts: 1_795_780_800_000,
    ttl_secs: 300,
    sender_seq: 7,
    sender_epoch: Buffer.alloc(16, 0xab),
    ...overrides,
  };
}

/**
 * JSON values as signed content: no -0 (it is signed as 0, so it would not
 * round-trip as itself), no undefined, and no "__proto__" key (signed data
 * refuses it: see src/trust/cbor.ts).
 */
export const jsonValue: fc.Arbitrary<unknown> = fc
  .jsonValue()
  .map((v) => JSON.parse(JSON.stringify(v)) as unknown)
  .filter((v) => !JSON.stringify(v).includes('"__proto__":'));
const jsonMap = fc.dictionary(fc.string({ maxLength: 8 }), jsonValue, { minKeys: 1, maxKeys: 4 });
const text = (max: number) => fc.string({ minLength: 1, maxLength: max });
const bytes = (length: number) => fc.uint8Array({ minLength: length, maxLength: length }).map((b) => Buffer.from(b));
const uint = fc.maxSafeNat();

/** Any valid set of signed fields. */
export const signedFields: fc.Arbitrary<SignedEventFields> = fc
  .record({
    id: text(40),
    from: bytes(32),
    thread: text(40),
    to: fc.option(bytes(32), { nil: null }),
    kind: fc.constantFrom('message', 'control', 'request', 'response', 'system'),
    text: fc.string(),
    json: jsonValue,
    meta: fc.option(jsonMap, { nil: null }),
    ts: uint,
    ttl_secs: fc.nat({ max: 2 ** 32 - 1 }),
    sender_seq: uint,
    sender_epoch: bytes(16),
  })
  .map(({ text: t, json, ...rest }) => ({ ...rest, content: rest.kind === 'message' ? t : json }));

/** One signed field, changed to another valid value. */
export function changedField(fields: SignedEventFields, which: number, seed: number): SignedEventFields {
  const flip = (b: Uint8Array) => {
    const c = Buffer.from(b);
    c[seed % c.length] = (c[seed % c.length] ?? 0) ^ (1 + (seed % 255));
    return c;
  };
  const bump = (n: number, max: number) => (n === max ? n - 1 : n + 1);
  switch (which % 11) {
    case 0:
      return { ...fields, id: `${fields.id}x` };
    case 1:
      return { ...fields, from: flip(fields.from) };
    case 2:
      return { ...fields, thread: `${fields.thread}x` };
    case 3:
      return { ...fields, to: fields.to === null ? Buffer.alloc(32, seed & 255) : seed % 2 ? null : flip(fields.to) };
    case 4:
      return fields.kind === 'message' ? { ...fields, kind: 'message2' } : { ...fields, kind: `${fields.kind}x` };
    case 5:
      return { ...fields, content: typeof fields.content === 'string' ? `${fields.content}x` : { wrapped: fields.content ?? null } };
    case 6:
      return { ...fields, meta: fields.meta === null ? { tags: ['x'] } : seed % 2 ? null : { ...fields.meta, __changed__: seed } };
    case 7:
      return { ...fields, ts: bump(fields.ts, Number.MAX_SAFE_INTEGER) };
    case 8:
      return { ...fields, ttl_secs: bump(fields.ttl_secs, 2 ** 32 - 1) };
    case 9:
      return { ...fields, sender_seq: bump(fields.sender_seq, Number.MAX_SAFE_INTEGER) };
    default:
      return { ...fields, sender_epoch: flip(fields.sender_epoch) };
  }
}
