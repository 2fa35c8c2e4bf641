import type Database from 'better-sqlite3';

/**
 * Read positions and per-recipient delivery state. Cursors say how far a
 * participant has read a thread; deliveries track each targeted event (DM,
 * request, response, mention, prod…) through pending → delivered → acknowledged.
 */
export type DeliveryState = 'pending' | 'delivered' | 'acknowledged';

export interface DeliveryRow {
  recipient_id: string;
  seq: number;
  session_id: string;
  thread_id: string;
  reason: string;
  state: DeliveryState;
  delivered_at: number | null;
  acknowledged_at: number | null;
}

export class DeliveryStore {
  private readonly getCursorStmt: Database.Statement;
  private readonly setCursorStmt: Database.Statement;
  private readonly insertStmt: Database.Statement;
  private readonly pendingStmt: Database.Statement;
  private readonly markDeliveredStmt: Database.Statement;
  private readonly markThreadDeliveredStmt: Database.Statement;
  private readonly ackStmt: Database.Statement;
  private readonly getStmt: Database.Statement;
  private readonly byStateStmt: Database.Statement;
  private readonly isTargetedStmt: Database.Statement;

  constructor(db: Database.Database) {
    this.getCursorStmt = db.prepare('SELECT seq FROM cursors WHERE participant_id = ? AND thread_id = ?');
    this.setCursorStmt = db.prepare(
      `INSERT INTO cursors (participant_id, thread_id, seq) VALUES (?, ?, ?)
       ON CONFLICT (participant_id, thread_id) DO UPDATE SET seq = MAX(seq, excluded.seq)`,
    );
    this.insertStmt = db.prepare(
      `INSERT OR IGNORE INTO deliveries (recipient_id, seq, session_id, thread_id, reason, state)
       VALUES (?, ?, ?, ?, ?, 'pending')`,
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
    this.byStateStmt = db.prepare(
      'SELECT * FROM deliveries WHERE recipient_id = ? AND session_id = ? AND state = ? AND seq <= ? ORDER BY seq DESC LIMIT ?',
    );
    this.isTargetedStmt = db.prepare('SELECT 1 FROM deliveries WHERE recipient_id = ? AND seq = ?');
  }

  cursor(participantId: string, threadId: string): number {
    const row = this.getCursorStmt.get(participantId, threadId) as { seq: number } | undefined;
    return row?.seq ?? 0;
  }

  /** Moves a cursor forward only; a lower value never moves it back. */
  advance(participantId: string, threadId: string, seq: number): void {
    this.setCursorStmt.run(participantId, threadId, seq);
  }

  add(recipientId: string, seq: number, sessionId: string, threadId: string, reason: string): void {
    this.insertStmt.run(recipientId, seq, sessionId, threadId, reason);
  }

  /** Pending items of events up to `visibleUpTo` (committed ones). */
  pending(recipientId: string, sessionId: string, visibleUpTo: number, limit: number): DeliveryRow[] {
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

  byState(recipientId: string, sessionId: string, state: DeliveryState, visibleUpTo: number, limit: number): DeliveryRow[] {
    return this.byStateStmt.all(recipientId, sessionId, state, visibleUpTo, limit) as DeliveryRow[];
  }

  isTargeted(recipientId: string, seq: number): boolean {
    return this.isTargetedStmt.get(recipientId, seq) !== undefined;
  }
}
