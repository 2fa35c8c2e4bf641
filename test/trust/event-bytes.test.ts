import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalEventTuple, eventSigningBytes, type SignedEventFields } from '../../src/trust/envelope.js';
import { encodeEventTuple } from '../../src/trust/event-bytes.js';
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
