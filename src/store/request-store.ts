import type Database from 'better-sqlite3';

/** An index of requests and their latest status; the events hold the full content. */
export interface RequestRow {
  request_id: string;
  session_id: string;
  thread_id: string;
  seq: number;
  from_id: string;
  to_id: string;
  intent: string;
  hop: number;
  reply_to: string | null;
  /** 'open' until the first response, then the latest response status. */
  status: string;
  updated_seq: number;
}

/** Statuses of a request still awaiting its answer (SQL list). */
export const OPEN_STATUSES = "('open', 'Accepted')";

export class RequestStore {
  private readonly insertStmt: Database.Statement;
  private readonly getStmt: Database.Statement;
  private readonly updateStmt: Database.Statement;
  private readonly incomingStmt: Database.Statement;
  private readonly outgoingStmt: Database.Statement;
  private readonly abbreviatedStmt: Database.Statement;

  constructor(db: Database.Database) {
    this.insertStmt = db.prepare(
      `INSERT INTO requests (request_id, session_id, thread_id, seq, from_id, to_id, intent, hop, reply_to, status, updated_seq)
       VALUES (@request_id, @session_id, @thread_id, @seq, @from_id, @to_id, @intent, @hop, @reply_to, @status, @updated_seq)`,
    );
    this.getStmt = db.prepare('SELECT * FROM requests WHERE request_id = ?');
    this.updateStmt = db.prepare('UPDATE requests SET status = ?, updated_seq = ? WHERE request_id = ?');
    this.incomingStmt = db.prepare(
      `SELECT * FROM requests WHERE to_id IN (?, 'all') AND from_id <> ? AND session_id = ? AND status IN ${OPEN_STATUSES} AND seq <= ? ORDER BY seq`,
    );
    this.outgoingStmt = db.prepare(
      `SELECT * FROM requests WHERE from_id = ? AND session_id = ? AND status IN ${OPEN_STATUSES} AND seq <= ? ORDER BY seq`,
    );
    this.abbreviatedStmt = db.prepare(
      `SELECT * FROM requests WHERE session_id = @session AND seq <= @upTo
         AND (upper(substr(request_id, 1, length(@part))) = upper(@part) OR upper(substr(request_id, -length(@part))) = upper(@part))
       ORDER BY seq`,
    );
  }

  insert(row: RequestRow): void {
    this.insertStmt.run(row);
  }

  get(requestId: string): RequestRow | undefined {
    return this.getStmt.get(requestId) as RequestRow | undefined;
  }

  updateStatus(requestId: string, status: string, seq: number): void {
    this.updateStmt.run(status, seq, requestId);
  }

  /** Requests of a session whose id starts or ends with `part` (any case), among those committed up to `visibleUpTo`. */
  abbreviated(sessionId: string, part: string, visibleUpTo: number): RequestRow[] {
    return this.abbreviatedStmt.all({ session: sessionId, part, upTo: visibleUpTo }) as RequestRow[];
  }

  /** Open requests to the participant, among those committed up to `visibleUpTo`. */
  openIncoming(participantId: string, sessionId: string, visibleUpTo: number): RequestRow[] {
    return this.incomingStmt.all(participantId, participantId, sessionId, visibleUpTo) as RequestRow[];
  }

  openOutgoing(participantId: string, sessionId: string, visibleUpTo: number): RequestRow[] {
    return this.outgoingStmt.all(participantId, sessionId, visibleUpTo) as RequestRow[];
  }
}
