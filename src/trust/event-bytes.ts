/**
 * The signed tuple of an event (src/schema/envelope.ts), written by hand:
 * byte for byte what canonicalEncode (cborg, RFC 8949 §4.2.1) writes for it,
 * at a fraction of the cost, since every event is encoded as it is appended.
 * The tuple's shape is fixed: an array of twelve, whose items are text, byte
 * strings, null and unsigned integers, each with the shortest head. Content
 * that is not text, and meta, are any JSON value: those are encoded by
 * canonicalEncode and spliced in (an array's canonical bytes are its head and
 * its items' canonical bytes, one after the other).
 *
 * Only fields that passed assertSignable come here. Text with a lone
 * surrogate (which UTF-8 cannot hold) is left to cborg: returns undefined.
 */

import { SIGNED_EVENT_DOMAIN } from '../schema/envelope.js';
import { canonicalEncode } from './cbor.js';

const MAJOR_BYTES = 2;
const MAJOR_TEXT = 3;
const MAJOR_ARRAY = 4;
const NULL = 0xf6;
const TUPLE_ITEMS = 12;
const LONE_SURROGATE = /\p{Cs}/u;

/** The fields of a signed event, as its signature covers them (eventSigningBytes, src/trust/envelope.ts). */
export interface SignedEventFields {
  id: string;
  /** The author's raw public key (32 bytes). */
  from: Uint8Array;
  thread: string;
  /** The addressed participant's raw public key (DMs), or null for everyone. */
  to: Uint8Array | null;
  kind: string;
  /** Text for a message; any JSON value otherwise. */
  content: unknown;
  /** Null when there is none; an empty map is signed as null. */
  meta: Record<string, unknown> | null;
  ts: number;
  ttl_secs: number;
  sender_seq: number;
  /** 16 bytes. */
  sender_epoch: Uint8Array;
}

function headLength(n: number): number {
  if (n < 24) return 1;
  if (n < 0x100) return 2;
  if (n < 0x10000) return 3;
  if (n < 0x100000000) return 5;
  return 9;
}

function writeHead(out: Buffer, at: number, major: number, n: number): number {
  const top = major << 5;
  if (n < 24) {
    out[at] = top | n;
    return at + 1;
  }
  if (n < 0x100) {
    out[at] = top | 24;
    out[at + 1] = n;
    return at + 2;
  }
  if (n < 0x10000) {
    out[at] = top | 25;
    out.writeUInt16BE(n, at + 1);
    return at + 3;
  }
  if (n < 0x100000000) {
    out[at] = top | 26;
    out.writeUInt32BE(n, at + 1);
    return at + 5;
  }
  out[at] = top | 27;
  out.writeUInt32BE(Math.floor(n / 0x100000000), at + 1);
  out.writeUInt32BE(n >>> 0, at + 5);
  return at + 9;
}

/** The domain string, the tuple's first item, encoded once. */
const DOMAIN_BYTES_ENCODED = ((): Buffer => {
  const DOMAIN_BYTES = Buffer.from(SIGNED_EVENT_DOMAIN, 'utf8');
  const out = Buffer.alloc(headLength(DOMAIN_BYTES.length) + DOMAIN_BYTES.length);
  const at = writeHead(out, 0, MAJOR_TEXT, DOMAIN_BYTES.length);
  out.set(DOMAIN_BYTES, at);
  return out;
})();

/** Text, bytes, or the canonical bytes of a JSON value (spliced as they are). */
type Part = { text: string; length: number } | { bytes: Uint8Array } | { encoded: Uint8Array } | null;

function textPart(value: string): Part | undefined {
  if (LONE_SURROGATE.test(value)) return undefined;
  return { text: value, length: Buffer.byteLength(value, 'utf8') };
}

function partLength(part: Part): number {
  if (part === null) return 1;
  if ('text' in part) return headLength(part.length) + part.length;
  if ('bytes' in part) return headLength(part.bytes.length) + part.bytes.length;
  return part.encoded.length;
}

function writePart(out: Buffer, at: number, part: Part): number {
  if (part === null) {
    out[at] = NULL;
    return at + 1;
  }
  if ('text' in part) {
    const start = writeHead(out, at, MAJOR_TEXT, part.length);
    return start + out.write(part.text, start, part.length, 'utf8');
  }
  if ('bytes' in part) {
    const start = writeHead(out, at, MAJOR_BYTES, part.bytes.length);
    out.set(part.bytes, start);
    return start + part.bytes.length;
  }
  out.set(part.encoded, at);
  return at + part.encoded.length;
}

/** The signing bytes of checked fields, or undefined when cborg must write them (a lone surrogate). `meta` is null for none. */
export function encodeEventTuple(fields: Omit<SignedEventFields, 'meta'>, meta: Record<string, unknown> | null): Uint8Array | undefined {
  const id = textPart(fields.id);
  const thread = textPart(fields.thread);
  const kind = textPart(fields.kind);
  const content = typeof fields.content === 'string' ? textPart(fields.content) : { encoded: canonicalEncode(fields.content, 'event.content') };
  if (!id || !thread || !kind || !content) return undefined;
  const parts: Part[] = [
    { encoded: DOMAIN_BYTES_ENCODED },
    id,
    { bytes: fields.from },
    thread,
    fields.to === null ? null : { bytes: fields.to },
    kind,
    content,
    meta === null ? null : { encoded: canonicalEncode(meta, 'event.meta') },
  ];
  const numbers = [fields.ts, fields.ttl_secs, fields.sender_seq];
  const epoch: Part = { bytes: fields.sender_epoch };
  let length = 1 + partLength(epoch);
  for (const part of parts) length += partLength(part);
  // -0 is written as 0, as canonicalEncode writes it.
  for (const n of numbers) length += headLength(n === 0 ? 0 : n);
  const out = Buffer.allocUnsafe(length);
  let at = writeHead(out, 0, MAJOR_ARRAY, TUPLE_ITEMS);
  for (const part of parts) at = writePart(out, at, part);
  for (const n of numbers) at = writeHead(out, at, 0, n === 0 ? 0 : n);
  at = writePart(out, at, epoch);
  if (at !== length) throw new Error(`the signed tuple took ${at} bytes where ${length} were counted`);
  // A plain Uint8Array, as cborg returns: what is decoded from it then holds Uint8Arrays too.
  return new Uint8Array(out.buffer, out.byteOffset, out.length);
}

