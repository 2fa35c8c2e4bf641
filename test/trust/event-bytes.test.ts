import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SignedEventTupleSchema } from '../../src/schema/envelope.js';
import { decodeStrict } from '../../src/trust/cbor.js';
import { canonicalEventTuple, decodeEventTuple, eventSigningBytes, type SignedEventFields } from '../../src/trust/envelope.js';
import { encodeEventTuple } from '../../src/trust/event-bytes.js';
import { readEventTuple } from '../../src/trust/event-tuple-reader.js';
import { sampleFields, signedFields } from './arbitraries.js';

const metaOf = (fields: SignedEventFields) => (fields.meta === null || Object.keys(fields.meta).length === 0 ? null : fields.meta);
const hex = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : Buffer.from(bytes).toString('hex'));

describe('the signed tuple, written by hand', () => {
  it('event bytes - the same bytes as cborg writes, for any valid fields', () => {
    fc.assert(
      fc.property(signedFields, (fields) => {
        expect(hex(eventSigningBytes(fields))).toBe(hex(canonicalEventTuple(fields, metaOf(fields))));
      }),
      { numRuns: 3000 },
    );
  });

  it('event bytes - every head length: numbers and text at each boundary of the shortest form', () => {
    const sizes = [0, 23, 24, 255, 256, 65_535, 65_536, 2 ** 32 - 1, 2 ** 32, Number.MAX_SAFE_INTEGER];
    for (const n of sizes) {
      const fields = sampleFields({ ts: n, sender_seq: n, ttl_secs: Math.min(n, 3600) });
      expect(hex(encodeEventTuple(fields, metaOf(fields))), `number ${n}`).toBe(hex(canonicalEventTuple(fields, metaOf(fields))));
    }
    for (const length of [0, 23, 24, 255, 256, 65_535, 65_536, 70_000]) {
      const fields = sampleFields({ content: 'é'.repeat(length >> 1) + 'x'.repeat(length & 1), meta: {} });
      expect(hex(encodeEventTuple(fields, metaOf(fields))), `text ${length}`).toBe(hex(canonicalEventTuple(fields, metaOf(fields))));
    }
    const negativeZero = sampleFields({ ts: -0, sender_seq: -0 });
    expect(hex(encodeEventTuple(negativeZero, metaOf(negativeZero)))).toBe(hex(canonicalEventTuple(negativeZero, metaOf(negativeZero))));
  });

  it('event bytes - text a lone surrogate makes unencodable in UTF-8 is left to cborg', () => {
    const fields = sampleFields({ content: 'half \ud800 a pair' });
    expect(encodeEventTuple(fields, metaOf(fields))).toBeUndefined();
    expect(hex(eventSigningBytes(fields))).toBe(hex(canonicalEventTuple(fields, metaOf(fields))));
  });
});

/** The general reader alone: cborg's strict decoding and the tuple's schema. */
function generalRead(bytes: Uint8Array): SignedEventFields | string {
  try {
    const t = SignedEventTupleSchema.parse(decodeStrict(bytes, { maxBytes: 1 << 20, what: 'event' }));
    return { id: t[1], from: t[2], thread: t[3], to: t[4], kind: t[5], content: t[6], meta: t[7], ts: t[8], ttl_secs: t[9], sender_seq: t[10], sender_epoch: t[11] };
  } catch (error) {
    return (error as Error).message;
  }
}

const plain = (fields: SignedEventFields | string | undefined) =>
  fields === undefined || typeof fields === 'string' ? fields : { ...fields, from: hex(fields.from), to: hex(fields.to ?? undefined), sender_epoch: hex(fields.sender_epoch) };
/** Text content and no meta: the tuples the hand reader takes. */
const textTuples = signedFields.map((fields) => ({ ...fields, kind: 'message', content: typeof fields.content === 'string' ? fields.content : JSON.stringify(fields.content), meta: null }));

describe('the signed tuple, read by hand', () => {
  it('event tuple reader - reads every text tuple with no meta as the general reader does', () => {
    fc.assert(
      fc.property(textTuples, (fields) => {
        const bytes = eventSigningBytes(fields);
        expect(plain(readEventTuple(bytes))).toEqual(plain(generalRead(bytes)));
      }),
      { numRuns: 2000 },
    );
  });

  it('event tuple reader - leaves other content and meta to the general reader', () => {
    fc.assert(
      fc.property(signedFields, (fields) => {
        const read = readEventTuple(eventSigningBytes(fields));
        if (typeof fields.content === 'string' && (fields.meta === null || Object.keys(fields.meta).length === 0)) expect(read).toBeDefined();
        else expect(read).toBeUndefined();
      }),
      { numRuns: 1000 },
    );
  });

  it('event tuple reader - never takes bytes the general reader refuses: changed, cut or lengthened', () => {
    const mutated = fc.record({ fields: textTuples, at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }), how: fc.constantFrom('set', 'cut', 'add', 'insert') });
    fc.assert(
      fc.property(mutated, ({ fields, at, byte, how }) => {
        const good = Buffer.from(eventSigningBytes(fields));
        const i = at % good.length;
        const bytes =
          how === 'set'
            ? Buffer.from(good).fill(byte, i, i + 1)
            : how === 'cut'
              ? good.subarray(0, i)
              : how === 'add'
                ? Buffer.concat([good, Buffer.from([byte])])
                : Buffer.concat([good.subarray(0, i), Buffer.from([byte]), good.subarray(i)]);
        const read = readEventTuple(bytes);
        const general = generalRead(bytes);
        if (read !== undefined) expect(plain(read)).toEqual(plain(general));
        if (typeof general === 'string') expect(read).toBeUndefined();
      }),
      { numRuns: 5000 },
    );
  });

  it('event tuple reader - refuses each way a tuple is not canonical, and decodeEventTuple names the fault', () => {
    const fields = sampleFields({ meta: null, content: 'hello', ts: 5 });
    const good = Buffer.from(eventSigningBytes(fields));
    const tsAt = good.indexOf(Buffer.from([0x05, 0x19]));
    const text = (s: Buffer) => Buffer.concat([Buffer.from([0x60 | s.length]), s]);
    const contentAt = good.indexOf(text(Buffer.from('hello')));
    const swapContent = (s: Buffer) => Buffer.concat([good.subarray(0, contentAt), text(s), good.subarray(contentAt + 6)]);
    const cases: Record<string, Buffer> = {
      'a number written longer than needed': Buffer.concat([good.subarray(0, tsAt), Buffer.from([0x18, 0x05]), good.subarray(tsAt + 1)]),
      'text that starts with a byte-order mark': swapContent(Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0x69])),
      'text that is not UTF-8': swapContent(Buffer.from([0x68, 0xc3, 0x28, 0x69, 0x21])),
      'a byte after the tuple': Buffer.concat([good, Buffer.from([0x00])]),
    };
    expect(readEventTuple(good)).toBeDefined();
    expect(tsAt).toBeGreaterThan(0);
    for (const [what, bytes] of Object.entries(cases)) {
      expect(readEventTuple(bytes), what).toBeUndefined();
      expect(() => decodeEventTuple(bytes), what).toThrow(/Invalid event/);
    }
    const longId = canonicalEventTuple(sampleFields({ id: 'x'.repeat(129) }), null);
    expect(readEventTuple(longId)).toBeUndefined();
    expect(() => decodeEventTuple(longId)).toThrow(/field id \(position 1\): must be at most 128 characters/);
  });
});
