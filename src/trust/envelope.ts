/**
 * Signing and verifying events in the v1 signed form (the tuple documented in
 * src/schema/envelope.ts). Fixed decision: the Ed25519 signature is over the
 * CBOR bytes themselves, with no pre-hash (Ed25519 hashes internally: not
 * sign(hash(cbor))). The tuple is an array, so its order is fixed by position
 * and costs no map sorting; only content and meta maps are sorted.
 */

import type { KeyObject } from 'node:crypto';
import { DEFAULT_TRUST_MAX_ENVELOPE_BYTES } from '../config/defaults.js';
import { ParleyError } from '../errors/parley-error.js';
import {
  MAX_SIGNED_ID_CHARS,
  MAX_SIGNED_KIND_CHARS,
  MAX_TTL_SECS,
  SENDER_EPOCH_BYTES,
  SIGNED_EVENT_DOMAIN,
  SIGNED_EVENT_POSITIONS,
  SignedEventJsonSchema,
  SignedEventTupleSchema,
  type SignedEventJson,
} from '../schema/envelope.js';
import { canonicalEncode, decodeStrict, findUnencodable } from './cbor.js';
import { encodeEventTuple, type SignedEventFields } from './event-bytes.js';
import { readEventTuple } from './event-tuple-reader.js';
import { cachedPublicKey, ED25519_KEY_BYTES, ED25519_SIGNATURE_BYTES, formatPublicKey, parsePublicKey } from './node-id.js';
import { ed25519Sign, ed25519Verify } from './ed25519.mjs';

export type { SignedEventFields } from './event-bytes.js';

function invalid(field: string, reason: string): ParleyError {
  return new ParleyError('INVALID_INPUT', `Invalid signed event field ${field}: ${reason}.`, { field });
}

function checkText(value: unknown, field: string, max: number): void {
  if (typeof value !== 'string' || value.length === 0 || value.length > max) throw invalid(field, `must be text of 1 to ${max} characters`);
}

function checkBytes(value: unknown, field: string, length: number): void {
  if (!(value instanceof Uint8Array) || value.length !== length) throw invalid(field, `must be ${length} bytes`);
}

function checkUint(value: unknown, field: string, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) throw invalid(field, `must be a whole number from 0 to ${max}`);
}

/** The same rules as SignedEventTupleSchema, checked by hand: this runs once per event on the hub's hot path. */
function assertSignable(fields: SignedEventFields): void {
  checkText(fields.id, 'id', MAX_SIGNED_ID_CHARS);
  checkBytes(fields.from, 'from', ED25519_KEY_BYTES);
  checkText(fields.thread, 'thread', MAX_SIGNED_ID_CHARS);
  if (fields.to !== null) checkBytes(fields.to, 'to', ED25519_KEY_BYTES);
  checkText(fields.kind, 'kind', MAX_SIGNED_KIND_CHARS);
  if (fields.kind === 'message' && typeof fields.content !== 'string') throw invalid('content', 'a message’s content must be text');
  if (typeof fields.content !== 'string') {
    const problem = findUnencodable(fields.content, 'content', false, 1);
    if (problem) throw invalid(problem.path, problem.reason);
  }
  if (fields.meta !== null) {
    if (typeof fields.meta !== 'object' || Array.isArray(fields.meta)) throw invalid('meta', 'must be null or a map');
    const problem = findUnencodable(fields.meta, 'meta', false, 1);
    if (problem) throw invalid(problem.path, problem.reason);
  }
  checkUint(fields.ts, 'ts', Number.MAX_SAFE_INTEGER);
  checkUint(fields.ttl_secs, 'ttl_secs', MAX_TTL_SECS);
  checkUint(fields.sender_seq, 'sender_seq', Number.MAX_SAFE_INTEGER);
  checkBytes(fields.sender_epoch, 'sender_epoch', SENDER_EPOCH_BYTES);
}

function isEmptyMap(meta: Record<string, unknown> | null): boolean {
  if (meta === null) return true;
  for (const _key in meta) return false;
  return true;
}

/** The exact bytes an event's signature is over. */
export function eventSigningBytes(fields: SignedEventFields): Uint8Array {
  assertSignable(fields);
  const meta = isEmptyMap(fields.meta) ? null : fields.meta;
  let bytes: Uint8Array | undefined;
  try {
    bytes = encodeEventTuple(fields, meta);
  } catch {
    // What the hand-written encoder cannot take, cborg takes below, or refuses naming the field.
    bytes = undefined;
  }
  return bytes ?? canonicalEventTuple(fields, meta);
}

/** The same bytes, written by cborg. */
export function canonicalEventTuple(fields: SignedEventFields, meta: Record<string, unknown> | null): Uint8Array {
  return canonicalEncode(
    [
      SIGNED_EVENT_DOMAIN,
      fields.id,
      fields.from,
      fields.thread,
      fields.to,
      fields.kind,
      fields.content,
      meta,
      fields.ts,
      fields.ttl_secs,
      fields.sender_seq,
      fields.sender_epoch,
    ],
    'event',
  );
}

/** The 64-byte Ed25519 signature of the event by `privateKey` (a KeyObject the caller keeps: building one per call is 10× slower). */
export function signEvent(privateKey: KeyObject, fields: SignedEventFields): Buffer {
  return ed25519Sign(eventSigningBytes(fields), privateKey);
}

/**
 * Whether `signature` is the signature of these fields by `publicKey` (by
 * default the author, `fields.from`). False for any changed field or
 * signature byte; malformed fields are an INVALID_INPUT naming the field.
 */
export function verifyEvent(fields: SignedEventFields, signature: Uint8Array, publicKey: KeyObject | Uint8Array = fields.from): boolean {
  const bytes = eventSigningBytes(fields);
  if (!(signature instanceof Uint8Array) || signature.length !== ED25519_SIGNATURE_BYTES) return false;
  const key = publicKey instanceof Uint8Array ? cachedPublicKey(publicKey, 'publicKey') : publicKey;
  return ed25519Verify(bytes, key, signature);
}

/**
 * The fields of a signed event received as bytes (a peer, an import),
 * validated: any malformed, non-canonical, oversized or wrong-domain input is
 * an INVALID_INPUT naming the tuple position and field; nothing else is thrown.
 */
export function decodeEventTuple(bytes: Uint8Array, options: { maxBytes?: number } = {}): SignedEventFields {
  const maxBytes = options.maxBytes ?? DEFAULT_TRUST_MAX_ENVELOPE_BYTES;
  // Most tuples are text with no meta, read by hand; the rest, and every fault, by cborg and the schema.
  const read = bytes instanceof Uint8Array && bytes.length <= maxBytes ? readEventTuple(bytes) : undefined;
  if (read) return read;
  const value = decodeStrict(bytes, { maxBytes, what: 'event' });
  const parsed = SignedEventTupleSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const [position, ...rest] = issue?.path ?? [];
    if (typeof position !== 'number') {
      throw new ParleyError('INVALID_INPUT', `Invalid event: a signed event is a CBOR array of ${SIGNED_EVENT_POSITIONS.length} items (${issue?.message ?? 'not an array'}).`, {
        field: 'event',
      });
    }
    const field = [SIGNED_EVENT_POSITIONS[position] ?? String(position), ...rest.map(String)].join('.');
    throw new ParleyError('INVALID_INPUT', `Invalid signed event field ${field} (position ${position}): ${issue?.message ?? 'invalid'}.`, { field });
  }
  const t = parsed.data;
  return {
    id: t[1],
    from: t[2],
    thread: t[3],
    to: t[4],
    kind: t[5],
    content: t[6],
    meta: t[7],
    ts: t[8],
    ttl_secs: t[9],
    sender_seq: t[10],
    sender_epoch: t[11],
  };
}

/** The JSON form of the fields (keys as `ed25519:…`, the epoch in base64url), as exports and fixtures write them. */
export function eventFieldsToJson(fields: SignedEventFields): SignedEventJson {
  return {
    id: fields.id,
    from: formatPublicKey(fields.from, 'from'),
    thread: fields.thread,
    to: fields.to === null ? null : formatPublicKey(fields.to, 'to'),
    kind: fields.kind,
    content: fields.content as SignedEventJson['content'],
    meta: isEmptyMap(fields.meta) ? null : (fields.meta as SignedEventJson['meta']),
    ts: fields.ts,
    ttl_secs: fields.ttl_secs,
    sender_seq: fields.sender_seq,
    sender_epoch: Buffer.from(fields.sender_epoch).toString('base64url'),
  };
}

/** The fields from their JSON form, validated; errors name the field. */
export function eventFieldsFromJson(json: unknown): SignedEventFields {
  const parsed = SignedEventJsonSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = (issue?.path ?? []).map(String).join('.') || 'event';
    throw new ParleyError('INVALID_INPUT', `Invalid signed event field ${field}: ${issue?.message ?? 'invalid'}.`, { field });
  }
  const j = parsed.data;
  const epoch = Buffer.from(j.sender_epoch, 'base64url');
  if (epoch.length !== SENDER_EPOCH_BYTES || epoch.toString('base64url') !== j.sender_epoch) throw invalid('sender_epoch', `must be ${SENDER_EPOCH_BYTES} bytes in base64url`);
  return {
    id: j.id,
    from: parsePublicKey(j.from, 'from'),
    thread: j.thread,
    to: j.to === null ? null : parsePublicKey(j.to, 'to'),
    kind: j.kind,
    content: j.content,
    meta: j.meta,
    ts: j.ts,
    ttl_secs: j.ttl_secs,
    sender_seq: j.sender_seq,
    sender_epoch: epoch,
  };
}
