import type Database from 'better-sqlite3';
import type { EventMeta, EventType, ParleyEvent } from '../schema/event.js';

/**
 * The append-only event log. Rows are never updated;
 * per-thread order is seq order.
 */
export interface EventRow {
  seq: number;
  id: string;
  session_id: string;
  thread_id: string;
  ts: number;
  type: EventType;
  from_id: string;
  author: string;
  to_id: string;
  content: string;
  meta: string | null;
  /**
   * The author's Ed25519 signature over the signed fields (src/trust/envelope.ts), when it was
   * known at the append (signed elsewhere). A signature the hub made after the append is in
   * event_sigs: read an event's signature with EventLog.signatureOf.
   */
  sig: Buffer | null;
  /** Signed fields the other columns do not hold (null on events from before signing). */
  ttl_secs: number | null;
  sender_seq: number | null;
  sender_epoch: Buffer | null;
  /** The roster version in force when it was written; null in local mode. */
  roster_version: number | null;
  /**
   * What the author of an envelope signed elsewhere signed where the row shows the hub's own:
   * its ts (the row's ts is the receipt time) and its meta as JSON (null: none; the row's meta is
   * the one the hub computed). signed_ts is null when the row's ts and meta are what was signed.
   */
  signed_ts: number | null;
  signed_meta: string | null;
  /** The thread id its author signed, when it is not thread_id (an event taken from a linked hub, stored under this hub's thread). */
  signed_thread: string | null;
  /** The sender_seq of the author's previous event that crosses, in this thread and epoch (null: none or not known); see history-gaps.ts. */
  prev_seq: number | null;
}

/** The columns an event is shown from (rowToEvent): what reads that show events select, and nothing more (a row's other columns cost time to read). */
export type ShownEventRow = Pick<EventRow, 'seq' | 'id' | 'session_id' | 'thread_id' | 'ts' | 'type' | 'from_id' | 'author' | 'to_id' | 'content' | 'meta'>;
const SHOWN_COLUMNS = 'seq, id, session_id, thread_id, ts, type, from_id, author, to_id, content, meta';

/**
 * Shown rows are read as arrays (the statements' raw mode) and shaped here:
 * better-sqlite3 builds a row object one property at a time, which costs more
 * than reading the row (2.8 against 1.6 µs a row of an inbox page), while an
 * object literal of one fixed shape is almost free.
 */
function shownRow(values: unknown[]): ShownEventRow {
  return {
    seq: values[0] as number,
    id: values[1] as string,
    session_id: values[2] as string,
    thread_id: values[3] as string,
    ts: values[4] as number,
    type: values[5] as EventType,
    from_id: values[6] as string,
    author: values[7] as string,
    to_id: values[8] as string,
    content: values[9] as string,
    meta: values[10] as string | null,
  };
}

function* shownRows(rows: IterableIterator<unknown[]>): IterableIterator<ShownEventRow> {
  for (const values of rows) yield shownRow(values);
}

export function rowToEvent(row: ShownEventRow): ParleyEvent {
  const event: ParleyEvent = {
    seq: row.seq,
    id: row.id,
    ts: new Date(row.ts).toISOString(),
    session: row.session_id,
    thread: row.thread_id,
    type: row.type,
    from: row.from_id,
    author: row.author,
    to: row.to_id,
    content: row.type === 'message' ? row.content : (JSON.parse(row.content) as unknown),
  };
  if (row.meta !== null) event.meta = JSON.parse(row.meta) as EventMeta;
  return event;
}

export function eventToRow(event: ParleyEvent, tsMillis: number): EventRow {
  return {
    seq: event.seq,
    id: event.id,
    session_id: event.session,
    thread_id: event.thread,
    ts: tsMillis,
    type: event.type,
    from_id: event.from,
    author: event.author,
    to_id: event.to,
    content: typeof event.content === 'string' && event.type === 'message' ? event.content : JSON.stringify(event.content),
    meta: event.meta === undefined ? null : JSON.stringify(event.meta),
    sig: null,
    ttl_secs: null,
    sender_seq: null,
    sender_epoch: null,
    roster_version: null,
    signed_ts: null,
    signed_meta: null,
    signed_thread: null,
    prev_seq: null,
  };
}

export class EventLog {
  /**
   * The highest seq whose batch has committed. Writes run inside a batch that
   * commits at the end of the event-loop turn, and this connection would see
   * them early; every read is capped here so nobody reads an event that could
   * still be rolled back. The owner advances it after each commit.
   */
  visibleUpTo: number;
  private readonly insert: Database.Statement;
  private readonly after: Database.Statement;
  private readonly before: Database.Statement;
  private readonly range: Database.Statement;
  private readonly shownRange: Database.Statement;
  private readonly byIdStmt: Database.Statement;
  private readonly bySeqStmt: Database.Statement;
  private readonly maxSeqStmt: Database.Statement;
  private readonly unread: Database.Statement;
  private readonly allAfter: Database.Statement;
  private readonly ownCommittedAfter: Database.Statement;
  private readonly ownCommittedCount: Database.Statement;
  private readonly countStmt: Database.Statement;
  private readonly sessionAfter: Database.Statement;
  private readonly threadCount: Database.Statement;
  private readonly unrostered: Database.Statement;
  private readonly lastSenderSeqStmt: Database.Statement;
  private readonly authorsStmt: Database.Statement;
  private readonly signedThreadsStmt: Database.Statement;
  private readonly setSigStmt: Database.Statement;
  private readonly lateSigStmt: Database.Statement;
  private readonly unsignedAfterStmt: Database.Statement;

  constructor(db: Database.Database) {
    this.insert = db.prepare(
      `INSERT INTO events (seq, id, session_id, thread_id, ts, type, from_id, author, to_id, content, meta, sig, ttl_secs, sender_seq, sender_epoch, roster_version, signed_ts, signed_meta, signed_thread, prev_seq)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.after = db.prepare(`SELECT ${SHOWN_COLUMNS} FROM events WHERE thread_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?`).raw();
    this.before = db.prepare(`SELECT ${SHOWN_COLUMNS} FROM events WHERE thread_id = ? AND seq < ? AND seq <= ? ORDER BY seq DESC LIMIT ?`).raw();
    this.range = db.prepare('SELECT * FROM events WHERE thread_id = ? AND seq > ? AND seq < ? AND seq <= ? ORDER BY seq LIMIT ?');
    this.shownRange = db.prepare(`SELECT ${SHOWN_COLUMNS} FROM events WHERE thread_id = ? AND seq > ? AND seq < ? AND seq <= ? ORDER BY seq LIMIT ?`).raw();
    this.byIdStmt = db.prepare('SELECT * FROM events WHERE id = ?');
    this.bySeqStmt = db.prepare('SELECT * FROM events WHERE seq = ?');
    this.maxSeqStmt = db.prepare('SELECT COALESCE(MAX(seq), 0) AS seq FROM events');
    this.unread = db.prepare(
      `SELECT COUNT(*) AS n FROM (SELECT 1 FROM events WHERE thread_id = ? AND seq > ? AND seq <= ? AND from_id <> ? AND type <> 'system' LIMIT ?)`,
    );
    this.allAfter = db.prepare('SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ?');
    this.ownCommittedAfter = db.prepare(
      `SELECT e.* FROM events e WHERE e.seq > ? AND e.seq <= ? AND e.type IN (SELECT value FROM json_each(?)) AND e.sender_seq IS NOT NULL
       AND EXISTS (SELECT 1 FROM participants p WHERE p.id = e.from_id AND p.hub_key IS NULL) ORDER BY e.seq LIMIT ?`,
    );
    this.ownCommittedCount = db.prepare(
      `SELECT COUNT(*) FROM events e WHERE e.seq > ? AND e.seq <= ? AND e.type IN (SELECT value FROM json_each(?)) AND e.sender_seq IS NOT NULL
       AND EXISTS (SELECT 1 FROM participants p WHERE p.id = e.from_id AND p.hub_key IS NULL)`,
    ).pluck();
    this.countStmt = db.prepare('SELECT COUNT(*) AS n FROM events');
    this.visibleUpTo = (db.prepare('SELECT COALESCE(MAX(seq), 0) AS seq FROM events').get() as { seq: number }).seq;
    this.sessionAfter = db.prepare('SELECT * FROM events WHERE session_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?');
    this.threadCount = db.prepare('SELECT COUNT(*) AS n FROM events WHERE thread_id = ? AND seq <= ?');
    this.signedThreadsStmt = db.prepare('SELECT DISTINCT signed_thread FROM events WHERE thread_id = ? AND seq <= ? AND signed_thread IS NOT NULL ORDER BY signed_thread').pluck();
    this.authorsStmt = db.prepare('SELECT DISTINCT from_id FROM events WHERE thread_id = ? AND seq <= ?');
    this.lastSenderSeqStmt = db.prepare(
      'SELECT MAX(sender_seq) AS seq FROM events INDEXED BY events_by_envelope_sender WHERE from_id = ? AND thread_id = ? AND sender_epoch = ? AND sig IS NOT NULL',
    );
    this.unrostered = db.prepare('SELECT 1 FROM events WHERE thread_id = ? AND seq <= ? AND roster_version IS NULL LIMIT 1');
    // By seq and id together: after a rolled-back batch a seq is given again, to another event.
    this.setSigStmt = db.prepare('INSERT OR IGNORE INTO event_sigs (seq, sig) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM events WHERE seq = ? AND id = ? AND sig IS NULL)');
    this.lateSigStmt = db.prepare('SELECT sig FROM event_sigs WHERE seq = ?').pluck();
    this.unsignedAfterStmt = db.prepare(
      'SELECT e.* FROM events e WHERE e.seq > ? AND e.sig IS NULL AND e.sender_seq IS NOT NULL AND NOT EXISTS (SELECT 1 FROM event_sigs s WHERE s.seq = e.seq) ORDER BY e.seq',
    );
  }

  /** Told of each row appended (the history's stream summaries). */
  onAppend: ((row: EventRow) => void) | undefined;

  append(row: EventRow): void {
    // Bound by position: by name, the binding looks up each of the 20 names on the row (a third of the call).
    this.insert.run(
      row.seq,
      row.id,
      row.session_id,
      row.thread_id,
      row.ts,
      row.type,
      row.from_id,
      row.author,
      row.to_id,
      row.content,
      row.meta,
      row.sig,
      row.ttl_secs,
      row.sender_seq,
      row.sender_epoch,
      row.roster_version,
      row.signed_ts,
      row.signed_meta,
      row.signed_thread,
      row.prev_seq,
    );
    this.onAppend?.(row);
  }

  /**
   * Stores the signature of event `id` at `seq`, made after it was appended
   * (in event_sigs); false when that event is gone or already signed.
   */
  setSig(seq: number, id: string, sig: Buffer): boolean {
    return this.setSigStmt.run(seq, sig, seq, id).changes === 1;
  }

  /** An event's signature, wherever it is stored (null: unsigned). Rows read from events carry only the one known at the append. */
  signatureOf(row: EventRow): Buffer | null {
    return row.sig ?? ((this.lateSigStmt.get(row.seq) as Buffer | undefined) ?? null);
  }

  /** Events after `afterSeq` that have signing fields but no signature yet. */
  unsignedAfter(afterSeq: number): EventRow[] {
    return this.unsignedAfterStmt.all(afterSeq) as EventRow[];
  }

  /** Makes events up to `seq` visible to readers (called once their batch has committed). */
  markCommitted(seq: number): void {
    if (seq > this.visibleUpTo) this.visibleUpTo = seq;
  }

  /**
   * Committed, signed events after `afterSeq`, all sessions, oldest first, of
   * the `types` given, by participants this hub hosts: what it may send a
   * linked hub (the rest is never read into memory).
   */
  readOwnCommittedAfter(afterSeq: number, types: readonly string[], limit: number): EventRow[] {
    return this.ownCommittedAfter.all(afterSeq, this.visibleUpTo, JSON.stringify(types), limit) as EventRow[];
  }

  /** How many events readOwnCommittedAfter would read after `afterSeq`, without a limit. */
  countOwnCommittedAfter(afterSeq: number, types: readonly string[]): number {
    return this.ownCommittedCount.get(afterSeq, this.visibleUpTo, JSON.stringify(types)) as number;
  }

  /** Every event after `afterSeq`, all sessions (rebuilding derived indexes). */
  readAllAfter(afterSeq: number, limit: number): EventRow[] {
    return this.allAfter.all(afterSeq, limit) as EventRow[];
  }

  readAfter(threadId: string, afterSeq: number, limit: number): ShownEventRow[] {
    return (this.after.all(threadId, afterSeq, this.visibleUpTo, limit) as unknown[][]).map(shownRow);
  }

  /*
   * Pages bounded in rows and in bytes: rows are stepped one at a time and
   * the page ends at `limit` rows or once `maxBytes` of stored content is
   * reached (always at least one row), so no read holds more than that,
   * however large the thread's messages are. `more` says rows were left.
   */

  /** Oldest first, after `afterSeq` (and before `beforeSeq`, when given). */
  pageAfter(threadId: string, afterSeq: number, limit: number, maxBytes: number, beforeSeq = Number.MAX_SAFE_INTEGER): EventPage {
    return takeBounded(this.range.iterate(threadId, afterSeq, beforeSeq, this.visibleUpTo, limit + 1) as IterableIterator<EventRow>, limit, maxBytes);
  }

  /** As pageAfter, with only the columns an event is shown from (reads that show events). */
  shownPageAfter(threadId: string, afterSeq: number, limit: number, maxBytes: number, beforeSeq = Number.MAX_SAFE_INTEGER): EventPage<ShownEventRow> {
    return takeBounded(shownRows(this.shownRange.iterate(threadId, afterSeq, beforeSeq, this.visibleUpTo, limit + 1) as IterableIterator<unknown[]>), limit, maxBytes);
  }

  /** Newest first, strictly before `beforeSeq`. */
  pageBefore(threadId: string, beforeSeq: number, limit: number, maxBytes: number): EventPage<ShownEventRow> {
    return takeBounded(shownRows(this.before.iterate(threadId, beforeSeq, this.visibleUpTo, limit + 1) as IterableIterator<unknown[]>), limit, maxBytes);
  }

  /**
   * The highest sender_seq of an author's events stored with their signature (signed elsewhere,
   * or signed at the append) in a thread under one epoch (undefined: none). The seqs the hub gave
   * its own authors are in SenderStore.lastSeq.
   */
  lastSenderSeq(fromId: string, threadId: string, epoch: Buffer): number | undefined {
    return (this.lastSenderSeqStmt.get(fromId, threadId, epoch) as { seq: number | null }).seq ?? undefined;
  }

  /** The ids of everyone who wrote in a thread up to `upToSeq`. */
  /** The other thread ids the thread's events up to `upToSeq` were signed for (events taken from linked hubs). */
  signedThreadsOf(threadId: string, upToSeq: number): string[] {
    return this.signedThreadsStmt.all(threadId, upToSeq) as string[];
  }

  authorsOf(threadId: string, upToSeq: number): string[] {
    return (this.authorsStmt.all(threadId, upToSeq) as Array<{ from_id: string }>).map((row) => row.from_id);
  }

  /** Whether a thread has events up to `upToSeq` written with no roster in force (local mode). */
  hasUnrostered(threadId: string, upToSeq: number): boolean {
    return this.unrostered.get(threadId, upToSeq) !== undefined;
  }

  /** Events of a thread up to `upToSeq` (an export's snapshot). */
  countInThread(threadId: string, upToSeq: number): number {
    return (this.threadCount.get(threadId, upToSeq) as { n: number }).n;
  }

  /** Every event of a session after `afterSeq` (live stream resume). */
  readSessionAfter(sessionId: string, afterSeq: number, limit: number): EventRow[] {
    return this.sessionAfter.all(sessionId, afterSeq, this.visibleUpTo, limit) as EventRow[];
  }

  byId(id: string): EventRow | undefined {
    return this.byIdStmt.get(id) as EventRow | undefined;
  }

  bySeq(seq: number): EventRow | undefined {
    return this.bySeqStmt.get(seq) as EventRow | undefined;
  }

  maxSeq(): number {
    return (this.maxSeqStmt.get() as { seq: number }).seq;
  }

  count(): number {
    return (this.countStmt.get() as { n: number }).n;
  }

  /**
   * Unread events in a thread after `afterSeq` not written by `excludeFrom`,
   * counted up to `cap`. System events (a thread created, renamed, closed) are
   * the thread's own bookkeeping, not something to read: they never count.
   */
  countUnread(threadId: string, afterSeq: number, excludeFrom: string, cap: number): number {
    return (this.unread.get(threadId, afterSeq, this.visibleUpTo, excludeFrom, cap) as { n: number }).n;
  }


}

export interface EventPage<Row = EventRow> {
  rows: Row[];
  more: boolean;
}

/** What a row costs to hold and send: its stored content and meta (UTF-16 length, close to bytes for text). */
export function rowSize(row: Pick<EventRow, 'content' | 'meta'>): number {
  return row.content.length + (row.meta?.length ?? 0) + 200;
}

function takeBounded<Row extends Pick<EventRow, 'content' | 'meta'>>(iterator: IterableIterator<Row>, limit: number, maxBytes: number): EventPage<Row> {
  const rows: Row[] = [];
  let bytes = 0;
  let more = false;
  try {
    for (const row of iterator) {
      if (rows.length >= limit || (rows.length > 0 && bytes + rowSize(row) > maxBytes)) {
        more = true;
        break;
      }
      rows.push(row);
      bytes += rowSize(row);
    }
  } finally {
    // Ends the statement's step early, releasing its read.
    iterator.return?.();
  }
  return { rows, more };
}
