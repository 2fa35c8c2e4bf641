import { TO_ALL } from '../schema/event.js';
import type { SignedEventFields } from '../trust/envelope.js';
import type { EventRow } from './event-log.js';

/**
 * The signed fields of a stored event: the row's own columns, with its
 * author's and addressee's public keys in place of their ids, and the ts and
 * meta its author signed when the row shows the hub's (an envelope signed
 * elsewhere), and the thread id it signed when the row is stored under
 * another (an event taken from a linked hub). Signing, the signed export and every later check all read a
 * row through this one function, so they cannot disagree about what was signed.
 */
export function signedFieldsOfRow(row: EventRow, rawKeyOf: (participantId: string) => Uint8Array): SignedEventFields {
  if (row.ttl_secs === null || row.sender_seq === null || row.sender_epoch === null) {
    throw new Error(`event ${row.id} (seq ${row.seq}) has no signing fields`);
  }
  return {
    id: row.id,
    from: rawKeyOf(row.from_id),
    thread: row.signed_thread ?? row.thread_id,
    to: row.to_id === TO_ALL ? null : rawKeyOf(row.to_id),
    kind: row.type,
    content: row.type === 'message' ? row.content : (JSON.parse(row.content) as unknown),
    meta: metaOf(row.signed_ts === null ? row.meta : row.signed_meta),
    ts: row.signed_ts ?? row.ts,
    ttl_secs: row.ttl_secs,
    sender_seq: row.sender_seq,
    sender_epoch: row.sender_epoch,
  };
}

function metaOf(json: string | null): Record<string, unknown> | null {
  return json === null ? null : (JSON.parse(json) as Record<string, unknown>);
}
