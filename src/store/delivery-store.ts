import type Database from 'better-sqlite3';
import type { DeliveryState } from '../schema/delivery.js';

/**
 * Read positions and per-recipient delivery state. Cursors say how far a
 * participant has read a thread; deliveries track each targeted event (DM,
 * request, response, mention, prod…) through pending → delivered (returned by
 * a consuming read) → injected (put into the agent's context by a hook or the
 * LLM middleware) → acknowledged (acked or answered). States only move forward.
 */

export interface DeliveryRow {
  recipient_id: string;
  seq: number;
  session_id: string;
  thread_id: string;
  reason: string;
  /** Who sent the event (null only for a row of an event no longer stored). */
  sender_id: string | null;
  state: DeliveryState;
  delivered_at: number | null;
  injected_at: number | null;
  acknowledged_at: number | null;
}

/** One recipient's delivery of an event the reader sent. */
export interface SentDeliveryRow extends DeliveryRow {
  recipient_handle: string;
}

/** Which deliveries to list: a state (or every not-yet-acknowledged one) held for at least `olderThanMs`. */
/** A state to list: one state, `unacknowledged` (delivered or injected), or `all`. */
export type DeliveryStateFilter = DeliveryState | 'unacknowledged' | 'all';

export interface DeliveryFilter {
  state: DeliveryStateFilter;
  /** Only those whose state began at or before this time (ms since the epoch). */
  since?: number;
  limit: number;
}

/**
 * When a delivery's current state began, as SQL: a pending item since it was
 * posted, a delivered or injected one since it reached the recipient, an
 * acknowledged one since it was acknowledged.
 */
const STATE_SINCE_SQL = `CASE d.state WHEN 'acknowledged' THEN d.acknowledged_at WHEN 'pending' THEN e.ts ELSE d.delivered_at END`;

const STATE_MATCH_SQL = `(d.state = @state OR @state = 'all' OR (@state = 'unacknowledged' AND d.state IN ('delivered', 'injected')))`;

export class DeliveryStore {
  private readonly getCursorStmt: Database.Statement;
  private readonly setCursorStmt: Database.Statement;
  private readonly insertStmt: Database.Statement;
  private readonly pendingStmt: Database.Statement;
  private readonly markDeliveredStmt: Database.Statement;
  private readonly markThreadDeliveredStmt: Database.Statement;
  private readonly ackStmt: Database.Statement;
  private readonly getStmt: Database.Statement;
  private readonly isTargetedStmt: Database.Statement;
  private readonly targetedStmt: Database.Statement;
  private readonly markInjectedStmt: Database.Statement;
  private readonly answeredStmt: Database.Statement;
  private readonly receivedStmt: Database.Statement;
  private readonly sentStmt: Database.Statement;
  private readonly sentAnyStmt: Database.Statement;
  private readonly cursorsInStmt: Database.Statement;
  private readonly db: Database.Database;
  /**
   * The recipient and thread pairs that may hold an item not yet acknowledged,
   * and their recipients (read from the store at first use, then added to by
   * add): answering in any other thread has nothing to acknowledge, and skips
   * its UPDATE; a reader outside the recipients has nothing pending, and its
   * inbox skips the query.
   */
  private unacknowledged: { pairs: Set<string>; recipients: Set<string> } | undefined;

  constructor(db: Database.Database) {
    this.db = db;
    this.getCursorStmt = db.prepare('SELECT seq FROM cursors WHERE participant_id = ? AND thread_id = ?');
    this.cursorsInStmt = db.prepare('SELECT thread_id, seq FROM cursors WHERE participant_id = ? AND thread_id IN (SELECT value FROM json_each(?))').raw(true);
    this.setCursorStmt = db.prepare(
      `INSERT INTO cursors (participant_id, thread_id, seq) VALUES (?, ?, ?)
       ON CONFLICT (participant_id, thread_id) DO UPDATE SET seq = MAX(seq, excluded.seq)`,
    );
    this.insertStmt = db.prepare(
      `INSERT OR IGNORE INTO deliveries (recipient_id, seq, session_id, thread_id, reason, sender_id, state)
       VALUES (?, ?, ?, ?, ?, ?, 'pending')`,
    );
    this.pendingStmt = db.prepare(
      `SELECT * FROM deliveries WHERE recipient_id = ? AND session_id = ? AND state = 'pending' AND seq <= ? ORDER BY seq LIMIT ?`,
    );
    this.markDeliveredStmt = db.prepare(
      `UPDATE deliveries SET state = 'delivered', delivered_at = ? WHERE recipient_id = ? AND seq = ? AND state = 'pending'`,
    );
    this.markThreadDeliveredStmt = db.prepare(
      `UPDATE deliveries SET state = 'delivered', delivered_at = ?
       WHERE recipient_id = ? AND thread_id = ? AND seq <= ? AND state = 'pending'`,
    );
    this.ackStmt = db.prepare(
      `UPDATE deliveries SET state = 'acknowledged', acknowledged_at = ?,
         delivered_at = COALESCE(delivered_at, ?) WHERE recipient_id = ? AND seq = ? AND state <> 'acknowledged'`,
    );
    this.getStmt = db.prepare('SELECT * FROM deliveries WHERE recipient_id = ? AND seq = ?');
    this.isTargetedStmt = db.prepare('SELECT 1 FROM deliveries WHERE recipient_id = ? AND seq = ?');
    // A range of the primary key (recipient_id, seq): one query for a page of rows instead of one per row.
    this.targetedStmt = db.prepare('SELECT seq FROM deliveries WHERE recipient_id = ? AND seq >= ? AND seq <= ? AND thread_id = ?').pluck();
    // An injection that skipped the consuming read also counts as delivered at that moment.
    this.markInjectedStmt = db.prepare(
      `UPDATE deliveries SET state = 'injected', injected_at = ?, delivered_at = COALESCE(delivered_at, ?)
       WHERE recipient_id = ? AND seq = ? AND state IN ('pending', 'delivered')`,
    );
    this.answeredStmt = db.prepare(
      // By state, so an answer looks only at the author's unacknowledged items, not at every delivery it ever had.
      `UPDATE deliveries INDEXED BY deliveries_by_state SET state = 'acknowledged', acknowledged_at = ?
       WHERE recipient_id = ? AND session_id = ? AND state IN ('delivered', 'injected') AND seq < ? AND thread_id = ?`,
    );
    this.receivedStmt = db.prepare(
      `SELECT d.* FROM deliveries d JOIN events e ON e.seq = d.seq
       WHERE d.recipient_id = @me AND d.session_id = @session AND ${STATE_MATCH_SQL} AND d.seq <= @upTo
         AND (@since IS NULL OR ${STATE_SINCE_SQL} <= @since)
       ORDER BY d.seq DESC LIMIT @limit`,
    );
    this.sentAnyStmt = db.prepare('SELECT 1 FROM deliveries INDEXED BY deliveries_by_sender WHERE sender_id = ? AND session_id = ? LIMIT 1').pluck();
    this.sentStmt = db.prepare(
      // From the sender's own deliveries, newest first: the cost is in what is shown, not in all it ever posted.
      `SELECT d.*, p.handle AS recipient_handle FROM deliveries d INDEXED BY deliveries_by_sender
         JOIN events e ON e.seq = d.seq JOIN participants p ON p.id = d.recipient_id
       WHERE d.sender_id = @me AND d.session_id = @session AND d.seq <= @upTo AND ${STATE_MATCH_SQL}
         AND (@since IS NULL OR ${STATE_SINCE_SQL} <= @since)
       ORDER BY d.seq DESC, p.handle LIMIT @limit`,
    );
  }

  cursor(participantId: string, threadId: string): number {
    const row = this.getCursorStmt.get(participantId, threadId) as { seq: number } | undefined;
    return row?.seq ?? 0;
  }

  /** The cursors of these threads that exist (a thread without one is at 0): one statement for many threads. */
  cursorsIn(participantId: string, threadIds: readonly string[]): Map<string, number> {
    const rows = this.cursorsInStmt.all(participantId, JSON.stringify(threadIds)) as Array<[string, number]>;
    return new Map(rows);
  }

  /** Moves a cursor forward only; a lower value never moves it back. */
  advance(participantId: string, threadId: string, seq: number): void {
    this.setCursorStmt.run(participantId, threadId, seq);
  }

  add(recipientId: string, seq: number, sessionId: string, threadId: string, reason: string, senderId: string): void {
    const unacknowledged = this.mayBeUnacknowledged();
    unacknowledged.pairs.add(pairKey(recipientId, threadId));
    unacknowledged.recipients.add(recipientId);
    this.insertStmt.run(recipientId, seq, sessionId, threadId, reason, senderId);
  }

  /** Pending items of events up to `visibleUpTo` (committed ones). */
  pending(recipientId: string, sessionId: string, visibleUpTo: number, limit: number): DeliveryRow[] {
    if (!this.mayBeUnacknowledged().recipients.has(recipientId)) return [];
    return this.pendingStmt.all(recipientId, sessionId, visibleUpTo, limit) as DeliveryRow[];
  }

  markDelivered(recipientId: string, seq: number, now: number): void {
    this.markDeliveredStmt.run(now, recipientId, seq);
  }

  markThreadDelivered(recipientId: string, threadId: string, uptoSeq: number, now: number): number {
    return this.markThreadDeliveredStmt.run(now, recipientId, threadId, uptoSeq).changes;
  }

  acknowledge(recipientId: string, seq: number, now: number): boolean {
    return this.ackStmt.run(now, now, recipientId, seq).changes > 0;
  }

  get(recipientId: string, seq: number): DeliveryRow | undefined {
    return this.getStmt.get(recipientId, seq) as DeliveryRow | undefined;
  }

  isTargeted(recipientId: string, seq: number): boolean {
    return this.isTargetedStmt.get(recipientId, seq) !== undefined;
  }

  /** The seqs in [fromSeq, toSeq] of one thread that are targeted at the recipient (see isTargeted). */
  targetedIn(recipientId: string, threadId: string, fromSeq: number, toSeq: number): Set<number> {
    return new Set(this.targetedStmt.all(recipientId, fromSeq, toSeq, threadId) as number[]);
  }

  /** Marks a pending or delivered item injected; false when it already was (or was acknowledged). */
  markInjected(recipientId: string, seq: number, now: number): boolean {
    return this.markInjectedStmt.run(now, now, recipientId, seq).changes > 0;
  }

  /**
   * Answering in a thread acknowledges what was targeted at the author there
   * before the answer and already given to them (an item they never got stays unacknowledged).
   */
  acknowledgeAnswered(recipientId: string, sessionId: string, threadId: string, beforeSeq: number, now: number): number {
    if (!this.mayBeUnacknowledged().pairs.has(pairKey(recipientId, threadId))) return 0;
    return this.answeredStmt.run(now, recipientId, sessionId, beforeSeq, threadId).changes;
  }

  /** A superset is harmless (the UPDATE finds nothing): rows rolled back or pruned may stay in it. */
  private mayBeUnacknowledged(): { pairs: Set<string>; recipients: Set<string> } {
    if (this.unacknowledged) return this.unacknowledged;
    const unacknowledged = { pairs: new Set<string>(), recipients: new Set<string>() };
    const rows = this.db.prepare("SELECT DISTINCT recipient_id, thread_id FROM deliveries WHERE state <> 'acknowledged'").iterate() as IterableIterator<{ recipient_id: string; thread_id: string }>;
    for (const row of rows) {
      unacknowledged.pairs.add(pairKey(row.recipient_id, row.thread_id));
      unacknowledged.recipients.add(row.recipient_id);
    }
    this.unacknowledged = unacknowledged;
    return unacknowledged;
  }

  /** Targeted items of one recipient in a state, whose state began at or before `filter.since`, newest first. */
  received(recipientId: string, sessionId: string, visibleUpTo: number, filter: DeliveryFilter): DeliveryRow[] {
    return this.receivedStmt.all({ me: recipientId, session: sessionId, state: filter.state, upTo: visibleUpTo, since: filter.since ?? null, limit: filter.limit }) as DeliveryRow[];
  }

  /** Per-recipient deliveries of the events one sender posted, newest events first. */
  sent(senderId: string, sessionId: string, visibleUpTo: number, filter: DeliveryFilter): SentDeliveryRow[] {
    // Most callers sent nothing targeted in the session: a look at the index's first entry answers them, a tenth of the full query.
    if (this.sentAnyStmt.get(senderId, sessionId) === undefined) return [];
    return this.sentStmt.all({ me: senderId, session: sessionId, state: filter.state, upTo: visibleUpTo, since: filter.since ?? null, limit: filter.limit }) as SentDeliveryRow[];
  }
}

function pairKey(recipientId: string, threadId: string): string {
  return `${recipientId}\n${threadId}`;
}
