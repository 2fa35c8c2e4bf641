import { decode, encode, rfc8949EncodeOptions, Token, Tokenizer, Type, type EncodeOptions } from 'cborg';
import { isUtf8 } from 'node:buffer';
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
 * map keys, and only the one encoding canonicalEncode writes for the value.
 * cborg's strict mode refuses integers and lengths written longer than
 * needed; the tokenizer below notes the rest as the tokens stream by
 * (unsorted map keys, floats longer than needed or that are integers, -0,
 * text that is not UTF-8 or starts with a byte-order mark, a "__proto__"
 * key), refused once the bytes have decoded (a decoding error is told
 * first, as when the value was encoded again to compare). Every failure is
 * an INVALID_INPUT; nothing else is thrown.
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
  const tokenizer = new CanonicalTokenizer(bytes, MAX_CBOR_DEPTH, what);
  let value: unknown;
  try {
    value = decode(bytes, { ...STRICT_DECODE, tokenizer });
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CBOR decode error: /, '') : String(error);
    throw rejected(what, reason, error);
  }
  // Only bytes that decode are judged for their form, as when they were encoded again to compare.
  if (tokenizer.notCanonical !== undefined) throw rejected(what, tokenizer.notCanonical);
  return value;
}

const NOT_CANONICAL = 'not in canonical form';

/** An array or map still open as the tokens stream by. */
interface Open {
  /** Items still to come (a map's keys and values both count), of `items`. */
  left: number;
  items: number;
  map: boolean;
  /** A map's last key, as encoded and as text. */
  lastKey: Uint8Array | undefined;
  lastKeyText: string;
  /** Where it is in the one holding it (its key or index), for an error's path; undefined at the top. */
  label: string | undefined;
}

/**
 * cborg's tokenizer, checking as the tokens stream by what its strict mode
 * lets through and canonicalEncode would write otherwise (see decodeStrict),
 * and counting how deeply arrays and maps are open, so that over-deep input
 * is refused before anything recurses into it (cborg's decoder and zod do).
 */
class CanonicalTokenizer extends Tokenizer {
  /** Each open array or map, innermost last. */
  private readonly open: Open[] = [];
  /** The first way the bytes are not the canonical encoding of what they decode to, if any. */
  notCanonical: string | undefined;

  constructor(
    bytes: Uint8Array,
    private readonly maxDepth: number,
    /** What the bytes are: the start of an error's path. */
    private readonly what: string,
  ) {
    super(bytes, STRICT_DECODE);
  }

  override next(): Token {
    const start = this.pos();
    const token = super.next();
    const end = start + token.encodedLength!;
    const parent = this.open[this.open.length - 1];
    let label: string | undefined;
    if (parent) {
      // A map's items alternate key, value: a key comes when an even number of them is left.
      if (parent.map && parent.left % 2 === 0) {
        parent.lastKey = this.#keyAfter(parent.lastKey, token, start, end);
        parent.lastKeyText = String(token.value);
      }
      label = parent.map ? parent.lastKeyText : String(parent.items - parent.left);
      parent.left -= 1;
    }
    const type = token.type;
    if (type === Type.string) {
      const text = this.data.subarray(start + headerBytes(this.data[start]!), end);
      if (!isUtf8(text)) this.notCanonical ??= `${NOT_CANONICAL}: text that is not valid UTF-8`;
      // cborg's decoder drops a leading byte-order mark, so the value would not spell these bytes.
      if (text[0] === 0xef && text[1] === 0xbb && text[2] === 0xbf) this.notCanonical ??= `${NOT_CANONICAL}: text that starts with a byte-order mark`;
    } else if (type === Type.float) {
      this.#checkFloat(token.value as number, start, end);
    } else if ((type === Type.array || type === Type.map) && token.value !== 0) {
      if (this.open.length >= this.maxDepth) throw new Error(`CBOR decode error: arrays and maps nested deeper than ${this.maxDepth} levels`);
      const items = type === Type.map ? (token.value as number) * 2 : (token.value as number);
      this.open.push({ left: items, items, map: type === Type.map, lastKey: undefined, lastKeyText: '', label });
    }
    while (this.open.length > 0 && this.open[this.open.length - 1]!.left === 0) this.open.pop();
    return token;
  }

  /** A map key: after the one before it in the order of their encoded bytes, and never "__proto__" (it would not survive as data). */
  #keyAfter(last: Uint8Array | undefined, token: Token, start: number, end: number): Uint8Array {
    if (token.value === PROTO_KEY) {
      const path = [this.what, ...this.open.flatMap((o) => (o.label === undefined ? [] : [o.label])), PROTO_KEY].join('.');
      this.notCanonical ??= `${path}: a map key "${PROTO_KEY}" is not allowed`;
    }
    const key = this.data.subarray(start, end);
    // Equal keys are cborg's to refuse (a repeated map key).
    if (last !== undefined && Buffer.compare(last, key) > 0) this.notCanonical ??= `${NOT_CANONICAL}: map keys out of order`;
    return key;
  }

  /** A float as canonicalEncode writes it: an integer (and -0) as an integer, any other in the shortest width that keeps it. */
  #checkFloat(value: number, start: number, end: number): void {
    if (Number.isSafeInteger(value)) this.notCanonical ??= `${NOT_CANONICAL}: an integer written as a float`;
    // Floats are rare in signed data: the width canonicalEncode picks is asked of it.
    else if (!sameBytes(encode(value, CANONICAL_OPTIONS), this.data.subarray(start, end))) this.notCanonical ??= `${NOT_CANONICAL}: a float written longer than needed`;
  }
}

/** The bytes of a data item's head, by its first byte (indefinite lengths are refused before this is asked). */
function headerBytes(first: number): number {
  const info = first & 31;
  return info < 24 ? 1 : 1 + 2 ** (info - 24);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);
}
