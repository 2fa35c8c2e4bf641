import crypto, { type KeyObject } from 'node:crypto';
import type Database from 'better-sqlite3';
import { DEFAULT_TRUST_TTL_SECS } from '../config/defaults.js';
import { ParleyError } from '../errors/parley-error.js';
import { SENDER_EPOCH_BYTES } from '../schema/envelope.js';
import { signEvent } from '../trust/envelope.js';
import { participantKeyPathOf, readKeyFile } from '../trust/key-files.js';
import type { EventRow } from './event-log.js';
import { signedFieldsOfRow } from './signed-fields.js';

/**
 * Migration 5 (event signatures): the columns it adds, and the signing of the
 * events a store held before signing. Kept apart from the list of migrations
 * because it is more than SQL; a released migration: never change what it does.
 */
export const EVENT_SIGNATURE_COLUMNS = `
      ALTER TABLE events ADD COLUMN sig BLOB;
      ALTER TABLE events ADD COLUMN ttl_secs INTEGER;
      ALTER TABLE events ADD COLUMN sender_seq INTEGER;
      ALTER TABLE events ADD COLUMN sender_epoch BLOB;
      -- The roster version in force when the event was written (NULL: local mode, no roster).
      ALTER TABLE events ADD COLUMN roster_version INTEGER;

      -- The last sender_seq given to each (author, thread): it only ever grows, even after pruning.
      CREATE TABLE sender_seqs (
        participant_id TEXT NOT NULL,
        thread_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        PRIMARY KEY (participant_id, thread_id)
      ) WITHOUT ROWID;

      -- Each author's current epoch (16 random bytes); a new one whenever its counters may have gone back.
      CREATE TABLE sender_epochs (
        participant_id TEXT PRIMARY KEY,
        epoch BLOB NOT NULL
      );
    `;

/**
 * Signs the events of a store from before signing, in seq order: each author
 * gets a fresh epoch and sender_seqs counted per thread from 1. About 50 µs an
 * event, so a store of a million events takes under a minute, once.
 */
export function signExistingEvents(db: Database.Database, home: string): void {
  const publicKeys = new Map((db.prepare('SELECT id, public_key FROM participants').all() as Array<{ id: string; public_key: Buffer }>).map((p) => [p.id, p.public_key]));
  const rawKeyOf = (id: string): Buffer => {
    const raw = publicKeys.get(id);
    if (!raw) throw new ParleyError('STORE_VERSION', `An event names participant ${id}, who is not in the store; the store is damaged. Restore it from a backup.`);
    return raw;
  };
  const privateKeys = new Map<string, KeyObject>();
  const epochs = new Map<string, Buffer>();
  const lastSeqs = new Map<string, { participant: string; thread: string; seq: number }>();
  const update = db.prepare('UPDATE events SET sig = ?, ttl_secs = ?, sender_seq = ?, sender_epoch = ? WHERE seq = ?');
  // In pages: the connection cannot update while a query over the same rows is still open.
  const page = db.prepare('SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT 1000');
  for (let after = 0; ; ) {
    const rows = page.all(after) as EventRow[];
    if (rows.length === 0) break;
    for (const row of rows) {
      let privateKey = privateKeys.get(row.from_id);
      if (!privateKey) {
        privateKey = readKeyFile(participantKeyPathOf(home, row.from_id));
        privateKeys.set(row.from_id, privateKey);
      }
      let epoch = epochs.get(row.from_id);
      if (!epoch) {
        epoch = crypto.randomBytes(SENDER_EPOCH_BYTES);
        epochs.set(row.from_id, epoch);
      }
      const counter = `${row.from_id}\n${row.thread_id}`;
      const senderSeq = (lastSeqs.get(counter)?.seq ?? 0) + 1;
      lastSeqs.set(counter, { participant: row.from_id, thread: row.thread_id, seq: senderSeq });
      // Events stored before signing were all written here: their own ts and meta are what is signed.
      const sealed: EventRow = { ...row, ttl_secs: DEFAULT_TRUST_TTL_SECS, sender_seq: senderSeq, sender_epoch: epoch, signed_ts: null, signed_meta: null };
      update.run(signEvent(privateKey, signedFieldsOfRow(sealed, rawKeyOf)), DEFAULT_TRUST_TTL_SECS, senderSeq, epoch, row.seq);
    }
    after = rows.at(-1)!.seq;
  }
  const setEpoch = db.prepare('INSERT INTO sender_epochs (participant_id, epoch) VALUES (?, ?)');
  for (const [participant, epoch] of epochs) setEpoch.run(participant, epoch);
  const setLastSeq = db.prepare('INSERT INTO sender_seqs (participant_id, thread_id, seq) VALUES (?, ?, ?)');
  for (const { participant, thread, seq } of lastSeqs.values()) setLastSeq.run(participant, thread, seq);
}
