import { decode, encode, rfc8949EncodeOptions, Token, Tokenizer, Type, type EncodeOptions } from 'cborg';
import { ParleyError } from '../errors/parley-error.js';

/**
 * The one CBOR encoding everything signed in Parley uses: RFC 8949 §4.2.1
 * deterministic encoding (shortest integers and lengths, shortest float that
 * keeps the value, map keys sorted by their encoded bytes, no indefinite
 * lengths), as cborg's `rfc8949EncodeOptions` writes it. Values that JSON has
 * no single spelling for are refused rather than guessed: `undefined`, NaN,
 * ±Infinity and BigInt; -0 is written as 0. The golden fixtures pin the bytes.
 */

/**
 * How deeply arrays and maps may nest in signed data (the event tuple counts
 * as one level). Far above any real event (request params nest at most
 * requests.maxJsonDepth, 32 by default), and far below what would exhaust
 * the stack of the decoder or of the validators that walk the value after it.
 */
export const MAX_CBOR_DEPTH = 128;

/** Thrown by the type encoders below, caught at once by canonicalEncode, which then finds the offending path. */
class Unencodable extends Error {}

function refuse(): never {
  throw new Unencodable();
}

const ZERO = new Token(Type.uint, 0);
const PROTO_KEY = '__proto__';

const CANONICAL_OPTIONS: EncodeOptions = {
  ...rfc8949EncodeOptions,
  typeEncoders: {
    undefined: refuse,
    bigint: refuse,
    number: (value: number) => {
      if (!Number.isFinite(value)) refuse();
      return Object.is(value, -0) ? ZERO : null;
    },
    // A "__proto__" key does not survive as data in JavaScript: an object built by assignment (a
    // schema's parse, a copy) drops it and takes its value as its prototype, so what was signed and
    // what is read would differ. It is refused in signed data.
    Object: (value: object) => (Object.hasOwn(value, PROTO_KEY) ? refuse() : null),
  },
};

/** The deterministic CBOR bytes of `value`; an unencodable part is an INVALID_INPUT naming its path under `root`. */
export function canonicalEncode(value: unknown, root = 'value'): Uint8Array {
  try {
    return encode(value, CANONICAL_OPTIONS);
  } catch (error) {
    const problem = findUnencodable(value, root, true);
    const { path, reason } = problem ?? { path: root, reason: error instanceof Error ? error.message : String(error) };
    throw new ParleyError('INVALID_INPUT', `Invalid ${path}: ${reason}, which signed data cannot hold. Leave it out or use a JSON value.`, {
      field: path,
      cause: error,
    });
  }
}

/**
 * The first part of `value` that has no canonical encoding, with its path
 * (`content.params.lines.2`), or undefined. `allowBytes` admits byte strings
 * (the signed tuples have them; JSON content does not).
 */
export function findUnencodable(
  value: unknown,
  path: string,
  allowBytes: boolean,
  depth = 0,
  ancestors: Set<object> = new Set(),
): { path: string; reason: string } | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : { path, reason: `${String(value)} is not a finite number` };
    case 'undefined':
      return { path, reason: 'undefined is not a value' };
    case 'bigint':
      return { path, reason: 'a BigInt is not a JSON number' };
    case 'object': {
      if (value === null) return undefined;
      if (value instanceof Uint8Array) return allowBytes ? undefined : { path, reason: 'bytes are not a JSON value' };
      if (ancestors.has(value)) return { path, reason: 'the value contains itself' };
      if (depth + 1 > MAX_CBOR_DEPTH) return { path, reason: `it nests arrays and maps deeper than ${MAX_CBOR_DEPTH} levels` };
      const isArray = Array.isArray(value);
      const proto = Object.getPrototypeOf(value) as unknown;
      if (!isArray && proto !== Object.prototype && proto !== null) return { path, reason: 'only plain objects and arrays can be signed' };
      ancestors.add(value);
      const entries: [string, unknown][] = isArray ? (value as unknown[]).map((v, i) => [String(i), v]) : Object.entries(value);
      if (!isArray && Object.hasOwn(value, PROTO_KEY)) return { path: `${path}.${PROTO_KEY}`, reason: `a map key "${PROTO_KEY}" is not allowed` };
      for (const [key, child] of entries) {
        const problem = findUnencodable(child, `${path}.${key}`, allowBytes, depth + 1, ancestors);
        if (problem) return problem;
      }
      ancestors.delete(value);
      return undefined;
    }
    default:
      return { path, reason: `a ${typeof value} is not a value` };
  }
}

/** cborg's strict reading: every non-canonical or JSON-less form it can spot is an error, not a value. */
const STRICT_DECODE = {
  strict: true,
  rejectDuplicateMapKeys: true,
  allowIndefinite: false,
  allowUndefined: false,
  allowNaN: false,
  allowInfinity: false,
  allowBigInt: false,
  // No `tags`: any tag is refused.
} as const;

export interface DecodeStrictOptions {
  /** The largest input accepted (config trust.maxEnvelopeBytes). */
  maxBytes: number;
  /** What the bytes are, for the error (`event`, `roster`). */
  what?: string;
}

function rejected(what: string, reason: string, cause?: unknown): ParleyError {
  return new ParleyError('INVALID_INPUT', `Invalid ${what}: ${reason}. Signed data must be deterministic CBOR (RFC 8949 §4.2.1) as Parley writes it.`, {
    field: what,
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * Decodes bytes that must be canonical: no indefinite lengths, undefined, NaN,
 * ±Infinity, integers beyond 2^53-1, tags, non-string map keys or repeated
 * map keys, and only the one encoding canonicalEncode writes for the value
 * (checked by encoding it again: this also refuses unsorted map keys, longer
 * floats than needed, -0 and invalid UTF-8, which cborg's strict mode lets
 * through). Every failure is an INVALID_INPUT; nothing else is thrown.
 */
export function decodeStrict(bytes: Uint8Array, options: DecodeStrictOptions): unknown {
  const what = options.what ?? 'cbor';
  if (!(bytes instanceof Uint8Array)) throw rejected(what, 'expected bytes');
  if (bytes.length > options.maxBytes) {
    throw new ParleyError('INVALID_INPUT', `Invalid ${what}: ${bytes.length} bytes, more than the ${options.maxBytes} allowed (trust.maxEnvelopeBytes).`, {
      field: what,
    });
  }
  if (bytes.length === 0) throw rejected(what, 'no bytes');
  let value: unknown;
  try {
    value = decode(bytes, { ...STRICT_DECODE, tokenizer: new DepthLimitedTokenizer(bytes, MAX_CBOR_DEPTH) });
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CBOR decode error: /, '') : String(error);
    throw rejected(what, reason, error);
  }
  let again: Uint8Array;
  try {
    again = encode(value, CANONICAL_OPTIONS);
  } catch (error) {
    const problem = findUnencodable(value, what, true);
    throw rejected(what, problem ? `${problem.path}: ${problem.reason}` : 'holds a value with no canonical encoding', error);
  }
  if (!sameBytes(again, bytes)) throw rejected(what, 'not in canonical form (map keys out of order, a number or length written longer than needed, or text that is not valid UTF-8)');
  return value;
}

/**
 * cborg's tokenizer, counting how deeply arrays and maps are open as their
 * tokens stream by, so over-deep input is refused before anything recurses
 * into it (cborg's decoder, the re-encoding check and zod all recurse).
 */
class DepthLimitedTokenizer extends Tokenizer {
  /** Items still to come in each open array or map, innermost last. */
  private readonly open: number[] = [];

  constructor(
    bytes: Uint8Array,
    private readonly maxDepth: number,
  ) {
    super(bytes, STRICT_DECODE);
  }

  override next(): Token {
    const token = super.next();
    const top = this.open.length - 1;
    if (top >= 0) this.open[top] = (this.open[top] ?? 1) - 1;
    const major = token.type.major;
    if ((major === Type.array.major || major === Type.map.major) && token.value !== 0) {
      if (this.open.length >= this.maxDepth) throw new Error(`CBOR decode error: arrays and maps nested deeper than ${this.maxDepth} levels`);
      this.open.push(major === Type.map.major ? token.value * 2 : token.value);
    }
    while (this.open.length > 0 && this.open[this.open.length - 1] === 0) this.open.pop();
    return token;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);
}
