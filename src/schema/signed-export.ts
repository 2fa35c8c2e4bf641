import { z } from 'zod';
import { SignedEventJsonSchema } from './envelope.js';
import { PublicKeyTextSchema, SignatureTextSchema } from './roster.js';

/**
 * The lines of a signed export (`parley export THREAD --signed`), format v2:
 * JSON Lines, one record per line, in this order:
 *
 *   1. the header, signed by the exporting hub's key: the thread (id, name,
 *      kind), whether a roster was in force, and each author's handle by key;
 *   2. the rosters its events were written under (`roster` lines);
 *   3. the events in the hub's order (`event` lines);
 *   4. the trailer, signed by the hub's key: the thread id, how many events,
 *      the first and last seq, and a hash chain over every line between the
 *      header and the trailer, seeded with the header line.
 *
 * What each signature covers is the CBOR form built in src/trust/export-seal.ts.
 * v1 exports had neither signature: nothing vouched for their thread name,
 * their author handles or which events they held.
 */
export const SIGNED_EXPORT_VERSION = 2;
export const EXPORT_HEADER_TYPE = 'parley-export';
export const EXPORT_TRAILER_TYPE = 'parley-export-end';

const SeqSchema = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

export const ExportAuthorSchema = z.strictObject({ key: PublicKeyTextSchema, handle: z.string().min(1) });

export const ExportHeaderSchema = z.strictObject({
  type: z.literal(EXPORT_HEADER_TYPE),
  v: z.literal(SIGNED_EXPORT_VERSION),
  /** The exporting hub's key: it signs the header and the trailer, and in local mode the whole export rests on it. */
  hub: PublicKeyTextSchema,
  mode: z.enum(['local', 'roster']),
  thread: z.strictObject({
    id: z.string().min(1),
    name: z.string(),
    kind: z.string(),
    /** The ids the same thread has on linked hubs, which the events written there were signed for. */
    signed_as: z.array(z.string().min(1)).max(256).optional(),
  }),
  /** Every author of the thread's events with its handle on the exporting hub: where a verifier takes names from. */
  authors: z.array(ExportAuthorSchema),
  exported_at: z.string(),
  sig: SignatureTextSchema,
});
export type ExportHeader = z.output<typeof ExportHeaderSchema>;
export type ExportHeaderFields = Omit<ExportHeader, 'sig'>;

export const ExportRosterLineSchema = z.strictObject({ type: z.literal('roster'), scope: z.enum(['org', 'local']), roster: z.unknown() });

export const ExportEventLineSchema = z.strictObject({
  type: z.literal('event'),
  /** The hub's order: covered by the trailer's chain (and its first and last seq), not by the event's signature. */
  seq: SeqSchema,
  /** The author's handle, for people reading the file: it must be the one the header signed for the event's key. */
  author: z.string(),
  /** The roster version in force when the event was written; null in local mode. */
  roster_version: z.number().int().min(1).nullable(),
  event: SignedEventJsonSchema,
  /** Null for an event the hub could not sign (its author's key file was missing). */
  sig: SignatureTextSchema.nullable(),
});
export type ExportEventLine = z.output<typeof ExportEventLineSchema>;

export const ExportTrailerSchema = z.strictObject({
  type: z.literal(EXPORT_TRAILER_TYPE),
  thread: z.string().min(1),
  events: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  /** The seq of the first and the last event exported; null when there were none. */
  first_seq: SeqSchema.nullable(),
  last_seq: SeqSchema.nullable(),
  /** SHA-256 chain (base64url) over the exact lines between the header and the trailer. */
  chain: z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'must be a 32-byte hash in base64url without padding'),
  sig: SignatureTextSchema,
});
export type ExportTrailer = z.output<typeof ExportTrailerSchema>;
