import { z } from 'zod';

/**
 * The signed form of an event, v1 (frozen: peer links and offline verifiers
 * depend on it; a change is a new domain string and a new fixtures folder).
 * A CBOR array of exactly these 12 items, in this order:
 *   0 domain        text   "parley/event/v1"
 *   1 id            text   the event's id (a ULID on Parley hubs)
 *   2 from          bytes  the author's raw Ed25519 public key, 32 bytes
 *   3 thread        text   the thread's id
 *   4 to            null | bytes(32)  the addressed participant's raw key (DMs), null for everyone
 *   5 kind          text   the event type (message, control, request, …)
 *   6 content       text for a message; otherwise the JSON value as CBOR
 *   7 meta          null | map  (reply_to, tags, mentions, …); no meta is null, never an empty map
 *   8 ts            uint   milliseconds since the epoch
 *   9 ttl_secs      uint   seconds the envelope stays valid after ts (≤ 2^32-1)
 *  10 sender_seq    uint   per (sender, thread), increasing (≤ 2^53-1)
 *  11 sender_epoch  bytes  16 bytes, new whenever the sender loses its counters
 * Not signed: the hub-local seq, session and author handle.
 */
export const SIGNED_EVENT_DOMAIN = 'parley/event/v1';
export const SIGNED_EVENT_POSITIONS = [
  'domain',
  'id',
  'from',
  'thread',
  'to',
  'kind',
  'content',
  'meta',
  'ts',
  'ttl_secs',
  'sender_seq',
  'sender_epoch',
] as const;
export const SENDER_EPOCH_BYTES = 16;
export const MAX_TTL_SECS = 2 ** 32 - 1;
export const MAX_SIGNED_ID_CHARS = 128;
export const MAX_SIGNED_KIND_CHARS = 64;

const bytesOf = (length: number) =>
  z.instanceof(Uint8Array, { message: `must be ${length} bytes` }).refine((b) => b.length === length, `must be ${length} bytes`);
const uintUpTo = (max: number) => z.number().int('must be a whole number').min(0, 'must not be negative').max(max, `must be at most ${max}`);
const shortText = (max: number) => z.string().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

export const SignedEventTupleSchema = z
  .tuple([
    z.literal(SIGNED_EVENT_DOMAIN, { message: `must be "${SIGNED_EVENT_DOMAIN}"` }),
    shortText(MAX_SIGNED_ID_CHARS),
    bytesOf(32),
    shortText(MAX_SIGNED_ID_CHARS),
    z.union([z.null(), bytesOf(32)], { message: 'must be null or 32 bytes' }),
    shortText(MAX_SIGNED_KIND_CHARS),
    z.json({ message: 'must be a JSON value' }),
    z.union([z.null(), z.record(z.string(), z.json()).refine((m) => Object.keys(m).length > 0, 'no meta is null, not an empty map')], {
      message: 'must be null or a map',
    }),
    uintUpTo(Number.MAX_SAFE_INTEGER),
    uintUpTo(MAX_TTL_SECS),
    uintUpTo(Number.MAX_SAFE_INTEGER),
    bytesOf(SENDER_EPOCH_BYTES),
  ])
  .superRefine((tuple, ctx) => {
    if (tuple[5] === 'message' && typeof tuple[6] !== 'string') {
      ctx.addIssue({ code: 'custom', path: [6], message: 'a message’s content must be text' });
    }
  });
export type SignedEventTuple = z.output<typeof SignedEventTupleSchema>;

/**
 * The JSON form of the signed fields (signed exports, the golden fixtures):
 * keys as `ed25519:…`, the epoch in base64url without padding. It carries the
 * same values; the signature is always over the CBOR tuple above.
 */
const base64url = (bytes: number) =>
  z.string().regex(new RegExp(`^[A-Za-z0-9_-]{${Math.ceil((bytes * 4) / 3)}}$`), `must be ${bytes} bytes in base64url without padding`);
const keyText = z.string().regex(/^ed25519:[A-Za-z0-9_-]{43}$/, 'must be an "ed25519:…" public key');

export const SignedEventJsonSchema = z.strictObject({
  id: shortText(MAX_SIGNED_ID_CHARS),
  from: keyText,
  thread: shortText(MAX_SIGNED_ID_CHARS),
  to: keyText.nullable(),
  kind: shortText(MAX_SIGNED_KIND_CHARS),
  content: z.json(),
  meta: z.record(z.string(), z.json()).nullable(),
  ts: uintUpTo(Number.MAX_SAFE_INTEGER),
  ttl_secs: uintUpTo(MAX_TTL_SECS),
  sender_seq: uintUpTo(Number.MAX_SAFE_INTEGER),
  sender_epoch: base64url(SENDER_EPOCH_BYTES),
});
export type SignedEventJson = z.output<typeof SignedEventJsonSchema>;
