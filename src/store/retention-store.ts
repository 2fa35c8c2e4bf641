import type Database from 'better-sqlite3';
import { OPEN_STATUSES } from './request-store.js';

/**
 * The SQL of retention: where a thread's cutoff lies, which events below it
 * may go, deleting them with what refers to them, the `pruned` record the
 * search index replays, and the file's free pages. The policy (which limits,
 * when, in what chunks) is the hub's (`hub/retention.ts`).
 *
 * Never pruned, whatever the cutoff: the thread's creation event, the store's
 * newest event (so `MAX(seq)` never goes back and no seq is handed out twice),
 * the events of open requests and the responses they already have.
 */
export interface PrunableEvent {
  seq: number;
  type: string;
  /** The request an event of type request or response belongs to. */
  request_id: string | null;
}

/** Seqs of a thread that stay whatever the cutoff. */
export interface AlwaysKept {
  created: number;
  newest: number;
}

export interface StoreFileStats {
  pageSize: number;
  pages: number;
  freePages: number;
  autoVacuum: 'none' | 'full' | 'incremental';
}

/**
 * Rows below the cutoff that stay: the creation event, the newest event, open requests and their
 * responses, and the channel's signed access policies (the evidence of who may read and write it).
 */
const PRUNABLE = `thread_id = @thread AND seq > @after AND seq <= @cutoff AND seq <> @created AND seq <> @newest
  AND NOT (type = 'control' AND json_extract(content, '$.access') IS NOT NULL)
  AND seq NOT IN (SELECT seq FROM requests WHERE thread_id = @thread AND status IN ${OPEN_STATUSES})
  AND NOT COALESCE(CASE WHEN type = 'response' THEN json_extract(content, '$.request_id') IN
    (SELECT request_id FROM requests WHERE thread_id = @thread AND status IN ${OPEN_STATUSES}) END, 0)`;

const REQUEST_ID = `CASE WHEN type IN ('request', 'response') THEN json_extract(content, '$.request_id') END`;

/** What a row costs on disk besides its text: ids, times, the row and index entries (an estimate). */
export const ROW_OVERHEAD_BYTES = 160;

const TRIMMED_KEY = 'pruned_trimmed_upto';

export class RetentionStore {
  readonly #db: Database.Database;
  readonly #statements = new Map<string, Database.Statement>();

  constructor(db: Database.Database) {
    this.#db = db;
  }

  /**
   * The thread's events before its first one at or after `beforeTs` are old
   * (seq order is time order): the highest seq below that one, or the
   * thread's newest when all are old (0 when none is). Read from the oldest
   * end, so a thread already pruned costs a few rows, not its whole history.
   */
  ageCutoff(threadId: string, beforeTs: number): number {
    const young = this.#stmt('SELECT seq FROM events WHERE thread_id = ? AND ts >= ? ORDER BY seq LIMIT 1').get(threadId, beforeTs) as
      | { seq: number }
      | undefined;
    if (young) return young.seq - 1;
    const newest = this.#stmt('SELECT MAX(seq) AS seq FROM events WHERE thread_id = ?').get(threadId) as { seq: number | null };
    return newest.seq ?? 0;
  }

  /** The newest seq of the thread beyond its `keep` newest events (0 when it has no more than that). */
  countCutoff(threadId: string, keep: number): number {
    const row = this.#stmt('SELECT seq FROM events WHERE thread_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?').get(threadId, keep) as
      | { seq: number }
      | undefined;
    return row?.seq ?? 0;
  }

  /** The store's newest seq (the one event never pruned). */
  newestSeq(): number {
    return (this.#stmt('SELECT COALESCE(MAX(seq), 0) AS seq FROM events').get() as { seq: number }).seq;
  }

  /** Up to `limit` events of a thread, oldest first, with after < seq <= cutoff that may be pruned. */
  prunable(threadId: string, after: number, cutoff: number, kept: AlwaysKept, limit: number): PrunableEvent[] {
    return this.#stmt(`SELECT seq, type, ${REQUEST_ID} AS request_id FROM events WHERE ${PRUNABLE} ORDER BY seq LIMIT @limit`).all({
      thread: threadId,
      after,
      cutoff,
      created: kept.created,
      newest: kept.newest,
      limit,
    }) as PrunableEvent[];
  }

  /** How many events pruning up to `cutoff` would remove, and about how many bytes they hold. */
  estimate(threadId: string, cutoff: number, kept: AlwaysKept): { events: number; bytes: number } {
    const row = this.#stmt(
      `SELECT COUNT(*) AS events, COALESCE(SUM(length(CAST(content AS BLOB)) + COALESCE(length(CAST(meta AS BLOB)), 0)), 0) AS bytes
       FROM events WHERE ${PRUNABLE}`,
    ).get({ thread: threadId, after: 0, cutoff, created: kept.created, newest: kept.newest }) as { events: number; bytes: number };
    return { events: row.events, bytes: row.bytes + row.events * ROW_OVERHEAD_BYTES };
  }

  /**
   * Deletes the events and what refers to them (their deliveries, signatures and expired sends; a closed
   * request's index row once its request event goes) and records the seqs
   * for the search index. Returns the record's id. Runs inside a write.
   */
  remove(threadId: string, events: readonly PrunableEvent[], at: number): number {
    const deleteEvent = this.#stmt('DELETE FROM events WHERE seq = ?');
    const deleteDeliveries = this.#stmt('DELETE FROM deliveries WHERE seq = ?');
    const deleteLateSig = this.#stmt('DELETE FROM event_sigs WHERE seq = ?');
    const deleteExpiredSend = this.#stmt('DELETE FROM expired_sends WHERE seq = ?');
    const deleteClosedRequest = this.#stmt(`DELETE FROM requests WHERE request_id = ? AND status NOT IN ${OPEN_STATUSES}`);
    for (const event of events) {
      deleteEvent.run(event.seq);
      deleteDeliveries.run(event.seq);
      deleteLateSig.run(event.seq);
      deleteExpiredSend.run(event.seq);
      if (event.type === 'request' && event.request_id !== null) deleteClosedRequest.run(event.request_id);
    }
    const seqs = JSON.stringify(events.map((e) => e.seq));
    return Number(this.#stmt('INSERT INTO pruned (thread_id, seqs, at) VALUES (?, ?, ?)').run(threadId, seqs, at).lastInsertRowid);
  }

  /** Pruned records after `id`, oldest first (what the search index has still to delete). */
  prunedAfter(id: number, limit: number): Array<{ id: number; seqs: number[] }> {
    const rows = this.#stmt('SELECT id, seqs FROM pruned WHERE id > ? ORDER BY id LIMIT ?').all(id, limit) as Array<{ id: number; seqs: string }>;
    return rows.map((row) => ({ id: row.id, seqs: JSON.parse(row.seqs) as number[] }));
  }

  /** The threads of the pruned records after `id`. */
  prunedThreadsAfter(id: number): string[] {
    return this.#stmt('SELECT DISTINCT thread_id FROM pruned WHERE id > ?').pluck().all(id) as string[];
  }

  /** The id of the latest pruned record ever written (0 when none). */
  latestPrunedId(): number {
    const row = this.#stmt("SELECT seq FROM sqlite_sequence WHERE name = 'pruned'").get() as { seq: number } | undefined;
    return Math.max(row?.seq ?? 0, this.trimmedUpTo());
  }

  /** Drops the records up to `id` (the search index has applied them); an index below this mark is rebuilt. */
  trim(id: number): void {
    if (id <= this.trimmedUpTo()) return;
    this.#stmt('DELETE FROM pruned WHERE id <= ?').run(id);
    this.#stmt('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(TRIMMED_KEY, String(id));
  }

  /** Records up to this id are gone from the store: an index that has not applied them must be rebuilt. */
  trimmedUpTo(): number {
    const row = this.#stmt('SELECT value FROM meta WHERE key = ?').get(TRIMMED_KEY) as { value: string } | undefined;
    return row === undefined ? 0 : Number(row.value);
  }

  fileStats(): StoreFileStats {
    const modes = ['none', 'full', 'incremental'] as const;
    return {
      pageSize: this.#db.pragma('page_size', { simple: true }) as number,
      pages: this.#db.pragma('page_count', { simple: true }) as number,
      freePages: this.#db.pragma('freelist_count', { simple: true }) as number,
      autoVacuum: modes[this.#db.pragma('auto_vacuum', { simple: true }) as number] ?? 'none',
    };
  }

  /** Gives up to `pages` free pages back to the file system (a store made with auto_vacuum=INCREMENTAL). */
  incrementalVacuum(pages: number): void {
    this.#db.exec(`PRAGMA incremental_vacuum(${Math.max(1, Math.floor(pages))})`);
  }

  /** Statements are prepared on first use: a store not yet migrated (doctor reads it) lacks the `pruned` table. */
  #stmt(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }
}
