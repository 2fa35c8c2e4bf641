import type Database from 'better-sqlite3';
import type { RetentionStore } from './retention-store.js';

/**
 * One author's events in one thread and epoch, as history sync counts them:
 * the author's key is its participant id here, the thread the one its author
 * signed (the origin hub's id), `thread_id` this hub's.
 */
export interface StreamRow {
  from_id: string;
  thread_id: string;
  thread: string;
  epoch: Buffer;
  /** The lowest and highest sender_seq held, and how many events are held. */
  min_seq: number;
  max_seq: number;
  held: number;
  /** The seq of this hub's log of the stream's first event held (where a scan of its events starts). */
  first_log_seq: number;
  /** The newest signed ts of its events. */
  newest_ts: number;
  /** Whether its sender_seqs grow with the seqs of this hub's log (it was taken in order): its first event after a sender_seq is then the one with the next. */
  ordered: boolean;
}

/** Only the kinds that cross to linked hubs are history that hubs sync (the others never leave their hub). */
export const CROSSING = "type IN ('message', 'request', 'response', 'control')";
/** An event's time as its author signed it (the row's ts is when this hub stored it). */
export const SIGNED_TS = 'COALESCE(signed_ts, ts)';
const IN_STREAM = `sender_seq IS NOT NULL AND sender_epoch IS NOT NULL AND ${CROSSING}`;

const CROSSING_TYPES: ReadonlySet<string> = new Set(['message', 'request', 'response', 'control']);

/** Rows folded in at a time: a long catch-up yields between chunks. */
const CHUNK_ROWS = 5_000;

interface LogRow {
  seq: number;
  thread_id: string;
  from_id: string;
  thread: string;
  epoch: Buffer;
  sender_seq: number;
  ts: number;
}

/**
 * The streams each thread holds, kept in memory so that a digest for a peer
 * costs the number of streams, not of events. A thread's events are read
 * from the log once, when it is first asked for; then the events committed
 * after are folded in (as they are written, or read by seq from where the
 * last fold stopped), and a thread retention pruned is read again. Events
 * are never deleted otherwise.
 */
export class StreamSummaries {
  readonly #threads = new Map<string, Map<string, StreamRow>>();
  /** The log is folded in through this seq; pruned records through this id. */
  #folded: number;
  #prunedMark: number;
  readonly #threadStmt: Database.Statement;
  readonly #afterStmt: Database.Statement;
  /**
   * The rows of the open batch, kept as they are written when every row
   * committed before it is folded in already: its commit folds them without
   * reading them back (undefined: not kept; the log is read after).
   */
  #batch: { rows: LogRow[]; last: number } | undefined;
  #batchOpen = false;

  constructor(
    db: Database.Database,
    private readonly head: () => number,
    private readonly retention: RetentionStore,
  ) {
    const columns = `seq, thread_id, from_id, COALESCE(signed_thread, thread_id) AS thread, sender_epoch AS epoch, sender_seq, ${SIGNED_TS} AS ts`;
    this.#threadStmt = db.prepare(`SELECT ${columns} FROM events WHERE thread_id = ? AND seq <= ? AND ${IN_STREAM} ORDER BY seq`);
    this.#afterStmt = db.prepare(`SELECT ${columns} FROM events WHERE seq > ? AND seq <= ? AND ${IN_STREAM} ORDER BY seq LIMIT ?`);
    this.#folded = head();
    this.#prunedMark = retention.latestPrunedId();
  }

  /** The streams of the threads, as the committed log holds them now. */
  of(threadIds: readonly string[]): StreamRow[] {
    while (!this.foldSome()) {
      // A long catch-up, in chunks.
    }
    const rows: StreamRow[] = [];
    for (const id of threadIds) rows.push(...this.#thread(id).values());
    return rows;
  }

  /** A row was written in the open batch (see #batch). */
  appended(row: { seq: number; thread_id: string; from_id: string; signed_thread: string | null; sender_epoch: Buffer | null; sender_seq: number | null; type: string; ts: number; signed_ts: number | null }): void {
    if (!this.#batchOpen) {
      this.#batchOpen = true;
      this.#batch = this.#threads.size > 0 && this.#folded >= this.head() ? { rows: [], last: 0 } : undefined;
    }
    const batch = this.#batch;
    if (!batch) return;
    batch.last = Math.max(batch.last, row.seq);
    if (row.sender_seq === null || row.sender_epoch === null || !CROSSING_TYPES.has(row.type)) return;
    const { seq, thread_id, from_id, sender_epoch: epoch, sender_seq } = row;
    batch.rows.push({ seq, thread_id, from_id, thread: row.signed_thread ?? thread_id, epoch, sender_seq, ts: row.signed_ts ?? row.ts });
  }

  /** The open batch ended: committed, its rows are folded in; rolled back, they are forgotten. */
  batchEnded(committed: boolean): void {
    const batch = this.#batch;
    this.#batch = undefined;
    this.#batchOpen = false;
    if (!committed || !batch) return;
    this.#forgetPruned();
    for (const row of batch.rows) this.#fold(row);
    this.#folded = Math.max(this.#folded, batch.last);
  }

  /** Folds in up to a chunk of the events committed since the last fold; true once none is left. */
  foldSome(): boolean {
    this.#forgetPruned();
    const head = this.head();
    if (this.#folded >= head) return true;
    if (this.#threads.size === 0) {
      // No thread read yet: each is read whole when first asked for.
      this.#folded = head;
      return true;
    }
    const rows = this.#afterStmt.all(this.#folded, head, CHUNK_ROWS) as LogRow[];
    for (const row of rows) this.#fold(row);
    const done = rows.length < CHUNK_ROWS;
    this.#folded = done ? head : rows[rows.length - 1]!.seq;
    return done;
  }

  #thread(id: string): Map<string, StreamRow> {
    let streams = this.#threads.get(id);
    if (!streams) {
      streams = new Map();
      this.#threads.set(id, streams);
      for (const row of this.#threadStmt.iterate(id, this.#folded) as IterableIterator<LogRow>) this.#fold(row);
    }
    return streams;
  }

  #fold(row: LogRow): void {
    // A thread not read yet is read whole when first asked for.
    const streams = this.#threads.get(row.thread_id);
    if (!streams) return;
    const key = streamKey(row.from_id, row.thread, row.epoch);
    const stream = streams.get(key);
    if (!stream) {
      streams.set(key, {
        from_id: row.from_id,
        thread_id: row.thread_id,
        thread: row.thread,
        epoch: row.epoch,
        min_seq: row.sender_seq,
        max_seq: row.sender_seq,
        held: 1,
        first_log_seq: row.seq,
        newest_ts: row.ts,
        ordered: true,
      });
      return;
    }
    if (row.sender_seq <= stream.max_seq) stream.ordered = false;
    stream.min_seq = Math.min(stream.min_seq, row.sender_seq);
    stream.max_seq = Math.max(stream.max_seq, row.sender_seq);
    stream.held += 1;
    stream.newest_ts = Math.max(stream.newest_ts, row.ts);
  }

  /** Threads retention pruned since the last look are read again when next asked for (all of them, if the records are gone). */
  #forgetPruned(): void {
    const latest = this.retention.latestPrunedId();
    if (latest <= this.#prunedMark) return;
    if (this.retention.trimmedUpTo() > this.#prunedMark) this.#threads.clear();
    else for (const threadId of this.retention.prunedThreadsAfter(this.#prunedMark)) this.#threads.delete(threadId);
    this.#prunedMark = latest;
  }
}

/** A stream's key: its author's participant id, its signed thread and its epoch (read as it is, not copied). */
export function streamKey(fromId: string, thread: string, epoch: Uint8Array): string {
  const bytes = Buffer.isBuffer(epoch) ? epoch : Buffer.from(epoch.buffer, epoch.byteOffset, epoch.byteLength);
  return `${fromId} ${thread} ${bytes.toString('hex')}`;
}
