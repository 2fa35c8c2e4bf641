import type Database from 'better-sqlite3';
import type { EventRow } from './event-log.js';

/**
 * One author's events in one thread and epoch, as history sync counts them:
 * the author's key is its participant id here, the thread the one its author
 * signed (the origin hub's id).
 */
export interface StreamRow {
  from_id: string;
  thread: string;
  epoch: Buffer;
  /** The lowest and highest sender_seq held, and how many events are held. */
  min_seq: number;
  max_seq: number;
  held: number;
}

/** A hole in a stream: an event held whose previous one (its prev_seq) is not, above the oldest held. */
export interface GapRow {
  from_id: string;
  thread_id: string;
  thread: string;
  epoch: Buffer;
  /** The lowest sender_seq known missing (the prev_seq of an event held), the highest held below the lowest hole, how many holes, and the signed ts of the first event after one. */
  missing: number;
  held_below: number;
  holes: number;
  after_ts: number;
}

/** Only the kinds that cross to linked hubs are history that hubs sync (the others never leave their hub). */
const CROSSING = "type IN ('message', 'request', 'response', 'control')";
/** An event's time as its author signed it (the row's ts is when this hub stored it). */
const SIGNED_TS = 'COALESCE(signed_ts, ts)';

/**
 * What history sync (src/hub/peer-history.ts) reads of the log: per thread
 * set (a channel and its side channels), the streams held, the events after
 * a seq, and the holes. Every read stops at the committed head.
 */
export class HistoryStore {
  private readonly streamsStmt: Database.Statement;
  private readonly pageStmt: Database.Statement;
  private readonly gapsStmt: Database.Statement;
  private readonly heldBelowStmt: Database.Statement;
  private readonly newestStmt: Database.Statement;
  private readonly accessStmt: Database.Statement;

  constructor(
    db: Database.Database,
    private readonly head: () => number,
  ) {
    const threads = 'thread_id IN (SELECT value FROM json_each(?))';
    this.streamsStmt = db.prepare(
      `SELECT from_id, COALESCE(signed_thread, thread_id) AS thread, sender_epoch AS epoch, MIN(sender_seq) AS min_seq, MAX(sender_seq) AS max_seq, COUNT(*) AS held
       FROM events WHERE ${threads} AND seq <= ? AND ${SIGNED_TS} >= ? AND sender_seq IS NOT NULL AND sender_epoch IS NOT NULL AND ${CROSSING}
       GROUP BY from_id, thread, sender_epoch`,
    );
    // One thread at a time, in the order of its index: with a list of threads SQLite would sort every row after `seq` for each page.
    this.pageStmt = db.prepare(
      `SELECT * FROM events WHERE thread_id = ? AND seq > ? AND seq <= ? AND ${SIGNED_TS} >= ? AND sender_seq IS NOT NULL AND sender_epoch IS NOT NULL AND ${CROSSING}
       ORDER BY seq LIMIT ?`,
    );
    // Both lookups go through the index of envelopes signed elsewhere: only events taken from linked hubs have gaps.
    const sameStream = 'f.from_id = e.from_id AND f.thread_id = e.thread_id AND f.sender_epoch = e.sender_epoch AND f.sig IS NOT NULL';
    this.gapsStmt = db.prepare(
      `SELECT from_id, thread_id, thread, epoch, MIN(missing) AS missing, MIN(held_below) AS held_below, COUNT(*) AS holes, MIN(after_ts) AS after_ts FROM (
         SELECT e.from_id, e.thread_id, COALESCE(e.signed_thread, e.thread_id) AS thread, e.sender_epoch AS epoch, e.prev_seq AS missing,
                COALESCE(e.signed_ts, e.ts) AS after_ts,
                (SELECT MAX(f.sender_seq) FROM events f INDEXED BY events_by_envelope_sender WHERE ${sameStream} AND f.sender_seq < e.prev_seq) AS held_below
         FROM events e WHERE e.${threads} AND e.seq <= ? AND e.prev_seq IS NOT NULL AND e.sig IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM events f INDEXED BY events_by_envelope_sender WHERE ${sameStream} AND f.sender_seq = e.prev_seq)
       ) WHERE held_below IS NOT NULL GROUP BY from_id, thread_id, epoch`,
    );
    this.heldBelowStmt = db
      .prepare(
        `SELECT MAX(sender_seq) FROM events INDEXED BY events_by_envelope_sender
         WHERE from_id = ? AND thread_id = ? AND sender_epoch = ? AND sig IS NOT NULL AND sender_seq <= ?`,
      )
      .pluck();
    // A control's content is its one kind's key first (see peer-outbox.ts).
    this.accessStmt = db.prepare(`SELECT * FROM events WHERE thread_id = ? AND seq <= ? AND type = 'control' AND content LIKE '{"access"%' ORDER BY seq DESC LIMIT 1`);
    // Walks one thread's index from its newest: retention keeps each thread's newest events (retention.ts).
    this.newestStmt = db.prepare('SELECT seq FROM events WHERE thread_id = ? AND seq <= ? ORDER BY seq DESC LIMIT 1 OFFSET ?').pluck();
  }

  /** The streams of the threads with events signed at or after `sinceTs`. */
  streams(threadIds: readonly string[], sinceTs: number): StreamRow[] {
    return this.streamsStmt.all(JSON.stringify(threadIds), this.head(), sinceTs) as StreamRow[];
  }

  /** Up to `limit` events of the threads after seq `after` (and after each thread's `floor`), signed at or after `sinceTs`, of the kinds that cross, oldest first. */
  page(threads: ReadonlyArray<{ id: string; floor: number }>, after: number, sinceTs: number, limit: number): EventRow[] {
    const head = this.head();
    const rowsOf = (thread: { id: string; floor: number }): EventRow[] => this.pageStmt.all(thread.id, Math.max(after, thread.floor), head, sinceTs, limit) as EventRow[];
    if (threads.length === 1) return rowsOf(threads[0]!);
    return threads.flatMap(rowsOf).sort((x, y) => x.seq - y.seq).slice(0, limit);
  }

  /** The holes in the threads' streams. */
  gaps(threadIds: readonly string[]): GapRow[] {
    return this.gapsStmt.all(JSON.stringify(threadIds), this.head()) as GapRow[];
  }

  /** The highest sender_seq at or below `seq` held of a stream taken from linked hubs (null: none). */
  heldAtOrBelow(fromId: string, threadId: string, epoch: Buffer, seq: number): number | null {
    return (this.heldBelowStmt.get(fromId, threadId, epoch, seq) as number | null) ?? null;
  }

  /** The newest control that set the channel's access policy (undefined: none). */
  latestAccessControl(threadId: string): EventRow | undefined {
    return this.accessStmt.get(threadId, this.head()) as EventRow | undefined;
  }

  /** The seq before which a thread holds `count` newer events (0: it holds no more than that). */
  seqBeforeNewest(threadId: string, count: number): number {
    return (this.newestStmt.get(threadId, this.head(), count) as number | undefined) ?? 0;
  }
}
