import type Database from 'better-sqlite3';

/** Bearer tokens, stored as SHA-256 hashes only. */
export interface TokenRow {
  token_hash: string;
  participant_id: string;
  session_id: string;
  created_at: number;
}

export class TokenStore {
  private readonly insertStmt: Database.Statement;
  private readonly allStmt: Database.Statement;
  private readonly revokeSeatStmt: Database.Statement;
  private readonly revokeOneStmt: Database.Statement;

  constructor(db: Database.Database) {
    this.insertStmt = db.prepare('INSERT INTO tokens (token_hash, participant_id, session_id, created_at) VALUES (?, ?, ?, ?)');
    this.allStmt = db.prepare('SELECT * FROM tokens');
    this.revokeSeatStmt = db.prepare('DELETE FROM tokens WHERE participant_id = ? AND session_id = ?');
    this.revokeOneStmt = db.prepare('DELETE FROM tokens WHERE token_hash = ?');
  }

  insert(row: TokenRow): void {
    this.insertStmt.run(row.token_hash, row.participant_id, row.session_id, row.created_at);
  }

  all(): TokenRow[] {
    return this.allStmt.all() as TokenRow[];
  }

  /** Revokes every token of one participant in one session; returns how many. */
  revokeSeat(participantId: string, sessionId: string): number {
    return this.revokeSeatStmt.run(participantId, sessionId).changes;
  }

  /** Revokes one token by its hash; returns whether it existed. */
  revokeOne(tokenHash: string): boolean {
    return this.revokeOneStmt.run(tokenHash).changes > 0;
  }
}
