import type Database from 'better-sqlite3';
import type { EventRow } from './event-log.js';
import type { RetentionStore } from './retention-store.js';
import { CROSSING, SIGNED_TS, StreamSummaries, type StreamRow } from './stream-summaries.js';

export type { StreamRow } from './stream-summaries.js';
export { streamKey } from './stream-summaries.js';

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


/** Events of a thread looked through, newest first, for an author's (see ownFirstAfter). */
const OWN_SEQ_ROWS = 2_000;

/**
 * What history sync (src/hub/peer-history.ts) reads of the log: per thread
 * set (a channel and its side channels), the streams held, the events after
 * a seq, and the holes. Every read stops at the committed head.
 */
export class HistoryStore {
  readonly #summaries: StreamSummaries;
  private readonly firstAfterStmt: Database.Statement;
  private readonly nextAfterStmt: Database.Statement;
  private readonly pageStmt: Database.Statement;
  private readonly gapsStmt: Database.Statement;
  private readonly heldBelowStmt: Database.Statement;
  private readonly newestStmt: Database.Statement;
  private readonly oldestStmt: Database.Statement;
  private readonly ownFirstAfterStmt: Database.Statement;
  private readonly accessStmt: Database.Statement;

  constructor(
    db: Database.Database,
    private readonly head: () => number,
    retention: RetentionStore,
  ) {
    this.#summaries = new StreamSummaries(db, head, retention);
    const threads = 'thread_id IN (SELECT value FROM json_each(?))';
    this.firstAfterStmt = db
      .prepare(
        `SELECT MIN(seq) FROM events INDEXED BY events_by_envelope_sender
         WHERE from_id = ? AND thread_id = ? AND sender_epoch = ? AND sig IS NOT NULL AND sender_seq > ? AND seq <= ?`,
      )
      .pluck();
    this.nextAfterStmt = db
      .prepare(
        `SELECT seq FROM events INDEXED BY events_by_envelope_sender
         WHERE from_id = ? AND thread_id = ? AND sender_epoch = ? AND sig IS NOT NULL AND sender_seq > ? AND seq <= ? ORDER BY sender_seq LIMIT 1`,
      )
      .pluck();
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
    // No index by author (the post path cannot afford one): the thread's newest events, walked back from `upTo`.
    this.ownFirstAfterStmt = db.prepare(
      `SELECT MIN(CASE WHEN sender_seq > @senderSeq THEN seq END) AS first, MAX(sender_seq <= @senderSeq) AS anchored
       FROM (SELECT from_id, sender_epoch, sender_seq, type, seq FROM events WHERE thread_id = @thread AND seq <= @upTo ORDER BY seq DESC LIMIT @rows)
       WHERE from_id = @from AND sender_epoch = @epoch AND sender_seq IS NOT NULL AND ${CROSSING}`,
    );
    this.oldestStmt = db.prepare('SELECT MIN(seq) FROM events WHERE thread_id = ?').pluck();
    this.newestStmt = db.prepare('SELECT seq FROM events WHERE thread_id = ? AND seq <= ? ORDER BY seq DESC LIMIT 1 OFFSET ?').pluck();
  }

  /** The streams the threads hold (kept in memory: the cost is the number of streams). */
  streams(threadIds: readonly string[]): StreamRow[] {
    return this.#summaries.of(threadIds);
  }

  /** Rows as they are written, and how their batch ended: the streams kept in memory follow them without reading them back. */
  get summaries(): Pick<StreamSummaries, 'appended' | 'batchEnded'> {
    return this.#summaries;
  }

  /** Folds some of the events committed since into the streams kept in memory; true once none is left (a catch-up in the background keeps digests quick). */
  foldStreams(): boolean {
    return this.#summaries.foldSome();
  }

  /**
   * The first seq of this hub's log of a stream taken from linked hubs with
   * a sender_seq above `senderSeq` (null: none). `ordered` (its sender_seqs
   * grow with the log's): the one with the next sender_seq, one index probe;
   * otherwise every one above is looked at.
   */
  firstAfter(stream: Pick<StreamRow, 'from_id' | 'thread_id' | 'epoch' | 'ordered'>, senderSeq: number): number | null {
    const statement = stream.ordered ? this.nextAfterStmt : this.firstAfterStmt;
    return (statement.get(stream.from_id, stream.thread_id, stream.epoch, senderSeq, this.head()) as number | null | undefined) ?? null;
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

  /**
   * The first log seq at or before `upTo` of an author's stream in a thread
   * with a sender_seq above `senderSeq`, for an author whose seqs grow with
   * the log's (this hub's own): null when there is none. Looked for among the
   * thread's newest OWN_SEQ_ROWS events up to `upTo`; undefined when no event
   * of the stream at or below `senderSeq` is among them (the answer is not).
   */
  ownFirstAfter(fromId: string, threadId: string, epoch: Buffer, senderSeq: number, upTo: number): number | null | undefined {
    const row = this.ownFirstAfterStmt.get({ thread: threadId, upTo: Math.min(upTo, this.head()), rows: OWN_SEQ_ROWS, from: fromId, epoch, senderSeq }) as { first: number | null; anchored: number | null };
    return row.anchored ? row.first : undefined;
  }

  /** The newest control that set the channel's access policy (undefined: none). */
  latestAccessControl(threadId: string): EventRow | undefined {
    return this.accessStmt.get(threadId, this.head()) as EventRow | undefined;
  }

  /** The seq before which a thread holds `count` newer events (0: it holds no more than that). */
  seqBeforeNewest(threadId: string, count: number): number {
    const head = this.head();
    // A thread whose seqs span no more than `count` holds no more events than that: its index need not be walked.
    const oldest = this.oldestStmt.get(threadId) as number | null;
    if (oldest === null || head - oldest < count) return 0;
    return (this.newestStmt.get(threadId, head, count) as number | undefined) ?? 0;
  }
}
