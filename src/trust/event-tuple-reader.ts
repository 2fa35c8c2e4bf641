/**
 * The signed tuple of an event (src/schema/envelope.ts), read by hand: the
 * reverse of event-bytes.ts, for the tuples most events are (text content,
 * no meta), at a fraction of the cost of cborg and zod, since every event a
 * linked hub sends is decoded on the main thread as it is taken in.
 *
 * It is strict the same way decodeStrict and SignedEventTupleSchema are:
 * every head the shortest, text valid UTF-8 not starting with a byte-order
 * mark, every field of its type and within its bounds, and nothing after the
 * tuple. Anything else (content that is not text, a meta map, any fault)
 * returns undefined, and the general reader decodes it or names the fault:
 * this one never accepts what that one refuses.
 */

import { isUtf8 } from 'node:buffer';
import { MAX_SIGNED_ID_CHARS, MAX_SIGNED_KIND_CHARS, MAX_TTL_SECS, SENDER_EPOCH_BYTES, SIGNED_EVENT_DOMAIN } from '../schema/envelope.js';
import type { SignedEventFields } from './event-bytes.js';

const MAJOR_UINT = 0;
const MAJOR_BYTES = 2;
const MAJOR_TEXT = 3;
const MAJOR_ARRAY = 4;
const NULL = 0xf6;
const TUPLE_HEAD = (MAJOR_ARRAY << 5) | 12;
const KEY_BYTES = 32;
const DOMAIN = Buffer.from(SIGNED_EVENT_DOMAIN, 'utf8');

/** A cursor over the tuple's bytes; `at` is -1 once anything is not as the fast path takes it. */
class Cursor {
  at = 0;
  constructor(readonly bytes: Buffer) {}

  /** The argument of a head of `major` type, in its shortest form; -1 when it is not one. */
  head(major: number): number {
    const { bytes } = this;
    if (this.at < 0 || this.at >= bytes.length) return this.fail();
    const first = bytes[this.at]!;
    if (first >> 5 !== major) return this.fail();
    const info = first & 31;
    if (info < 24) {
      this.at += 1;
      return info;
    }
    const width = info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : info === 27 ? 8 : 0;
    if (width === 0 || this.at + 1 + width > bytes.length) return this.fail();
    const start = this.at + 1;
    const n =
      width === 1
        ? bytes[start]!
        : width === 2
          ? bytes.readUInt16BE(start)
          : width === 4
            ? bytes.readUInt32BE(start)
            : bytes.readUInt32BE(start) * 0x100000000 + bytes.readUInt32BE(start + 4);
    // The shortest head: a value that fits a narrower one is not canonical; nor is one past 2^53-1.
    const least = width === 1 ? 24 : width === 2 ? 0x100 : width === 4 ? 0x10000 : 0x100000000;
    if (n < least || n > Number.MAX_SAFE_INTEGER) return this.fail();
    this.at = start + width;
    return n;
  }

  uint(max: number): number {
    const n = this.head(MAJOR_UINT);
    return n > max ? this.fail() : n;
  }

  /** Text of 1 to `max` UTF-16 units (as zod counts a string's length), or undefined. */
  text(min: number, max: number): string | undefined {
    const length = this.head(MAJOR_TEXT);
    if (length < 0 || this.at + length > this.bytes.length) return this.missing();
    const start = this.at;
    const end = start + length;
    const { bytes } = this;
    // A leading byte-order mark is not kept by the general reader: it names the fault.
    if (length >= 3 && bytes[start] === 0xef && bytes[start + 1] === 0xbb && bytes[start + 2] === 0xbf) return this.missing();
    const view = bytes.subarray(start, end);
    if (!isUtf8(view)) return this.missing();
    const text = bytes.toString('utf8', start, end);
    if (text.length < min || text.length > max) return this.missing();
    this.at = end;
    return text;
  }

  /** A byte string of exactly `length` bytes (a copy, as cborg gives), or undefined. */
  bytesOf(length: number): Uint8Array | undefined {
    if (this.head(MAJOR_BYTES) !== length || this.at + length > this.bytes.length) return this.missing();
    const out = new Uint8Array(this.bytes.subarray(this.at, this.at + length));
    this.at += length;
    return out;
  }

  isNull(): boolean {
    if (this.at >= 0 && this.bytes[this.at] === NULL) {
      this.at += 1;
      return true;
    }
    return false;
  }

  fail(): -1 {
    this.at = -1;
    return -1;
  }

  missing(): undefined {
    this.at = -1;
    return undefined;
  }
}

/** The fields of a signed tuple with text content and no meta, or undefined when the general reader must decode it. */
export function readEventTuple(input: Uint8Array): SignedEventFields | undefined {
  const bytes = Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  if (bytes[0] !== TUPLE_HEAD) return undefined;
  const cursor = new Cursor(bytes);
  cursor.at = 1;
  if (cursor.head(MAJOR_TEXT) !== DOMAIN.length || !DOMAIN.equals(bytes.subarray(cursor.at, cursor.at + DOMAIN.length))) return undefined;
  cursor.at += DOMAIN.length;
  const id = cursor.text(1, MAX_SIGNED_ID_CHARS);
  const from = id === undefined ? undefined : cursor.bytesOf(KEY_BYTES);
  const thread = from === undefined ? undefined : cursor.text(1, MAX_SIGNED_ID_CHARS);
  if (thread === undefined) return undefined;
  const to = cursor.isNull() ? null : cursor.bytesOf(KEY_BYTES);
  const kind = to === undefined ? undefined : cursor.text(1, MAX_SIGNED_KIND_CHARS);
  const content = kind === undefined ? undefined : cursor.text(0, Number.MAX_SAFE_INTEGER);
  if (content === undefined || !cursor.isNull()) return undefined;
  const ts = cursor.uint(Number.MAX_SAFE_INTEGER);
  const ttl = cursor.uint(MAX_TTL_SECS);
  const seq = cursor.uint(Number.MAX_SAFE_INTEGER);
  const epoch = cursor.at < 0 ? undefined : cursor.bytesOf(SENDER_EPOCH_BYTES);
  if (epoch === undefined || cursor.at !== bytes.length) return undefined;
  return { id: id!, from: from!, thread, to: to!, kind: kind!, content, meta: null, ts, ttl_secs: ttl, sender_seq: seq, sender_epoch: epoch };
}
