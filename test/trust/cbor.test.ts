import { decode, encode } from 'cborg';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalEncode, decodeStrict } from '../../src/trust/cbor.js';
import { refusal } from '../helpers/refusal.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const bytesOf = (h: string) => Buffer.from(h, 'hex');

describe('canonical CBOR encoding', () => {
  it('cbor - RFC 8949 §4.2.1 map order: keys sort by their encoded bytes (10, 100, -1, "z", "aa", false)', () => {
    const map = new Map<unknown, number>([
      [false, 0],
      ['aa', 0],
      ['z', 0],
      [-1, 0],
      [100, 0],
      [10, 0],
    ]);
    expect(hex(canonicalEncode(map))).toBe('a60a001864002000617a0062616100f400');
  });

  it('cbor - shortest integers and floats that keep the value; -0 is written as 0', () => {
    expect(hex(canonicalEncode([0, 23, 24, 255, 256, 65536, 2 ** 32, -1, -25]))).toBe('8900171818' + '18ff' + '190100' + '1a00010000' + '1b0000000100000000' + '20' + '3818');
    expect(hex(canonicalEncode([0.5, 1.1, 100000.5, -0]))).toBe('84f93800fb3ff199999999999afa47c35040' + '00');
  });

  it('cbor - undefined, NaN, ±Infinity and BigInt are refused naming their path', () => {
    expect(refusal(() => canonicalEncode({ a: { b: [1, undefined] } }, 'content'), 'INVALID_INPUT').field).toBe('content.a.b.1');
    expect(refusal(() => canonicalEncode({ n: Number.NaN }), 'INVALID_INPUT').field).toBe('value.n');
    expect(refusal(() => canonicalEncode([Infinity]), 'INVALID_INPUT').field).toBe('value.0');
    expect(refusal(() => canonicalEncode([-Infinity]), 'INVALID_INPUT').field).toBe('value.0');
    expect(refusal(() => canonicalEncode({ big: 1n }), 'INVALID_INPUT').field).toBe('value.big');
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(refusal(() => canonicalEncode(loop), 'INVALID_INPUT').field).toBe('value.self');
    expect(refusal(() => canonicalEncode({ when: new Date(0) }), 'INVALID_INPUT').field).toBe('value.when');
  });
});

describe('strict decoding', () => {
  it('decode - canonical bytes decode to their value', () => {
    expect(decodeStrict(canonicalEncode({ b: [1, 'x', null, true], a: 0.5 }), { maxBytes: 100 })).toEqual({ a: 0.5, b: [1, 'x', null, true] });
  });

  it.each([
    ['an indefinite-length array', '9f01ff', 'indefinite'],
    ['an indefinite-length map', 'bf616101ff', 'indefinite'],
    ['an indefinite-length text', '7f6161ff', 'indefinite'],
    ['undefined', 'f7', 'undefined'],
    ['NaN', 'f97e00', 'NaN'],
    ['Infinity', 'f97c00', 'Infinity'],
    ['a tag', 'c11a00000000', 'tag'],
    ['a repeated map key', 'a2616101616102', 'repeat map key'],
    ['an integer longer than needed', '1801', 'more bytes than necessary'],
    ['an integer beyond 2^53-1', '1b0020000000000000', 'safe integer'],
    ['a float longer than needed', 'fb3ff0000000000000', 'canonical'],
    ['-0', 'f98000', 'canonical'],
    ['map keys out of order', 'a2616201616101', 'canonical'],
    ['text that is not UTF-8', '62c328', 'canonical'],
    ['a non-text map key', 'a10101', 'non-string keys'],
    ['trailing bytes', '0101', 'too many terminals'],
    ['a truncated array', '8201', 'not enough entries'],
    ['a truncated text', '6561', 'not enough data'],
    ['nothing', '', 'no bytes'],
  ])('decode - refuses %s', (_what, input, reason) => {
    expect(refusal(() => decodeStrict(bytesOf(input), { maxBytes: 100 }), 'INVALID_INPUT').message).toContain(reason);
  });

  it('decode - bytes that do not decode are told as such before any fault of form (a repeated "__proto__" key is a repeated key)', () => {
    const proto = '695f5f70726f746f5f5f';
    expect(refusal(() => decodeStrict(bytesOf(`a2${proto}a0${proto}80`), { maxBytes: 100 }), 'INVALID_INPUT').message).toContain('repeat map key');
    expect(refusal(() => decodeStrict(bytesOf(`82a2616201616101`), { maxBytes: 100 }), 'INVALID_INPUT').message).toContain('not enough entries');
    expect(refusal(() => decodeStrict(bytesOf(`a1${proto}a0`), { maxBytes: 100, what: 'event' }), 'INVALID_INPUT').message).toContain('event.__proto__: a map key "__proto__" is not allowed');
  });

  it('decode - input over the cap is refused before decoding', () => {
    const error = refusal(() => decodeStrict(encode('x'.repeat(200)), { maxBytes: 100, what: 'event' }), 'INVALID_INPUT');
    expect(error.message).toContain('more than the 100 allowed');
    expect(error.field).toBe('event');
  });

  it('decode - deep nesting is a clear error, not a stack overflow', () => {
    expect(refusal(() => decodeStrict(Buffer.alloc(200_000, 0x81), { maxBytes: 256 * 1024 }), 'INVALID_INPUT').message).toContain('nested deeper than 128 levels');
  });
});

/**
 * What decodeStrict decides, checked against the plain definition of
 * canonical: the bytes decode (strictly) and encoding the value again gives
 * the same bytes. decodeStrict checks token by token instead of encoding
 * again; the two must agree on every input, canonical or not.
 */
function canonicalByDefinition(bytes: Uint8Array): boolean {
  try {
    const value: unknown = decode(bytes, { strict: true, rejectDuplicateMapKeys: true, allowIndefinite: false, allowUndefined: false, allowNaN: false, allowInfinity: false, allowBigInt: false });
    return Buffer.from(canonicalEncode(value)).equals(Buffer.from(bytes));
  } catch {
    return false;
  }
}

function acceptedByDecodeStrict(bytes: Uint8Array): boolean {
  try {
    decodeStrict(bytes, { maxBytes: 1 << 20 });
    return true;
  } catch {
    return false;
  }
}

describe('strict decoding agrees with encoding again', () => {
  // JSON-like values with bytes, floats of every width and text beyond ASCII; "__proto__" is left out (no plain object keeps it as data).
  const value = fc.letrec((tie) => ({
    leaf: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string({ unit: 'binary', maxLength: 30 }), fc.boolean(), fc.constant(null), fc.uint8Array({ maxLength: 30 })),
    node: fc.oneof({ depthSize: 'small' }, tie('leaf'), fc.array(tie('node'), { maxLength: 5 }), fc.dictionary(fc.string({ unit: 'binary', maxLength: 6 }).filter((k) => k !== '__proto__'), tie('node'), { maxKeys: 5 })),
  })).node;

  it('cbor - canonical bytes, other encoders\' bytes and their mutations get the same verdict', () => {
    fc.assert(
      fc.property(value, fc.nat(), fc.nat({ max: 255 }), (v, at, byte) => {
        const canonical = canonicalEncode(v);
        // cborg's own defaults sort map keys length first and may write wider floats.
        const others = [encode(v), encode(v, { float64: true })];
        const mutated = Uint8Array.from(canonical);
        mutated[at % mutated.length] = byte;
        expect(acceptedByDecodeStrict(canonical)).toBe(true);
        for (const bytes of [...others, mutated, canonical.subarray(0, Math.max(1, at % canonical.length))]) {
          expect(acceptedByDecodeStrict(bytes)).toBe(canonicalByDefinition(bytes));
        }
      }),
      { numRuns: 3000, seed: 8949 },
    );
  });

  it.each([
    ['a text length written longer than needed', '780161'],
    ['an array length written longer than needed', '980101'],
    ['bytes whose length is written longer than needed', '580101'],
    ['a map whose length is written longer than needed', 'b8016161f5'],
    ['1.0 as a half float', 'f93c00'],
    ['0.5 as a single float', 'fa3f000000'],
    ['2^60 as a double (a single keeps it)', 'fb43b0000000000000'],
    ['a "__proto__" key', 'a1695f5f70726f746f5f5fa0'],
    ['a longer key before a shorter one', 'a262616100617a00'],
    ['an overlong UTF-8 form', '62c0af'],
    // The decoder drops a leading byte-order mark: "a" would be read from these bytes.
    ['text starting with a byte-order mark', '64efbbbf61'],
    ['a map key starting with a byte-order mark', '81a164efbbbf61f6'],
  ])('cbor - %s: the same verdict both ways', (_what, input) => {
    expect(acceptedByDecodeStrict(bytesOf(input))).toBe(false);
    expect(canonicalByDefinition(bytesOf(input))).toBe(false);
  });
});

