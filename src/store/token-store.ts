import type Database from 'better-sqlite3';
import type { TokenKind } from '../schema/token.js';

/** Bearer tokens, stored as SHA-256 hashes only. */
export interface TokenRow {
  token_hash: string;
  participant_id: string;
  session_id: string;
  created_at: number;
  kind: TokenKind;
}

export class TokenStore {
  private readonly insertStmt: Database.Statement;
  private readonly allStmt: Database.Statement;
  private readonly revokeParticipantSessionStmt: Database.Statement;
  private readonly revokeOneStmt: Database.Statement;
  private readonly revokeKindStmt: Database.Statement;

  constructor(db: Database.Database) {
    this.insertStmt = db.prepare('INSERT INTO tokens (token_hash, participant_id, session_id, created_at, kind) VALUES (?, ?, ?, ?, ?)');
    this.allStmt = db.prepare('SELECT * FROM tokens');
    this.revokeParticipantSessionStmt = db.prepare('DELETE FROM tokens WHERE participant_id = ? AND session_id = ?');
    this.revokeOneStmt = db.prepare('DELETE FROM tokens WHERE token_hash = ?');
    this.revokeKindStmt = db.prepare('DELETE FROM tokens WHERE kind = ?');
  }

  insert(row: TokenRow): void {
    this.insertStmt.run(row.token_hash, row.participant_id, row.session_id, row.created_at, row.kind);
  }

  all(): TokenRow[] {
    return this.allStmt.all() as TokenRow[];
  }

  /** Revokes every token of one participant in one session; returns how many. */
  revokeParticipantSession(participantId: string, sessionId: string): number {
    return this.revokeParticipantSessionStmt.run(participantId, sessionId).changes;
  }

  /** Revokes one token by its hash; returns whether it existed. */
  revokeOne(tokenHash: string): boolean {
    return this.revokeOneStmt.run(tokenHash).changes > 0;
  }

  /** Revokes every token of one kind; returns how many. */
  revokeKind(kind: TokenKind): number {
    return this.revokeKindStmt.run(kind).changes;
  }
}
