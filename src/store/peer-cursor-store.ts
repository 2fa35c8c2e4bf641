import type Database from 'better-sqlite3';

/**
 * For each linked hub (by key text), the highest seq of this store it has
 * acknowledged as committed: the fan-out to it resumes after this.
 */
export class PeerCursorStore {
  private readonly getStmt: Database.Statement;
  private readonly setStmt: Database.Statement;
  private readonly allStmt: Database.Statement;

  constructor(db: Database.Database) {
    this.getStmt = db.prepare('SELECT seq FROM peer_cursors WHERE peer_key = ?').pluck();
    this.setStmt = db.prepare('INSERT INTO peer_cursors (peer_key, seq) VALUES (?, ?) ON CONFLICT (peer_key) DO UPDATE SET seq = MAX(seq, excluded.seq)');
    this.allStmt = db.prepare('SELECT peer_key, seq FROM peer_cursors ORDER BY peer_key');
  }

  /** The peer's cursor; 0 for a peer never sent anything. */
  cursor(peerKey: string): number {
    return (this.getStmt.get(peerKey) as number | undefined) ?? 0;
  }

  /** Whether the peer has a cursor (it was linked before). */
  has(peerKey: string): boolean {
    return this.getStmt.get(peerKey) !== undefined;
  }

  /** Moves the peer's cursor forward to `seq` (never back). Inside a write. */
  advance(peerKey: string, seq: number): void {
    this.setStmt.run(peerKey, seq);
  }

  all(): Array<{ peer_key: string; seq: number }> {
    return this.allStmt.all() as Array<{ peer_key: string; seq: number }>;
  }
}
