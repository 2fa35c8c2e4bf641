import type Database from 'better-sqlite3';

/**
 * For each linked hub (by key text), the highest seq of this store it has
 * acknowledged as committed: the fan-out to it resumes after this.
 */
export class PeerCursorStore {
  private readonly getStmt: Database.Statement;
  private readonly setStmt: Database.Statement;
  private readonly allStmt: Database.Statement;
  private readonly expiredStmt: Database.Statement;
  private readonly expiredAtStmt: Database.Statement;

  constructor(db: Database.Database) {
    this.getStmt = db.prepare('SELECT seq FROM peer_cursors WHERE peer_key = ?').pluck();
    this.setStmt = db.prepare('INSERT INTO peer_cursors (peer_key, seq) VALUES (?, ?) ON CONFLICT (peer_key) DO UPDATE SET seq = MAX(seq, excluded.seq)');
    this.allStmt = db.prepare('SELECT peer_key, seq FROM peer_cursors ORDER BY peer_key');
    this.expiredStmt = db.prepare('INSERT OR IGNORE INTO expired_sends (seq, expired_at) VALUES (?, ?)');
    this.expiredAtStmt = db.prepare('SELECT expired_at FROM expired_sends WHERE seq = ?').pluck();
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

  /** Records that the event at `seq` (a DM) expired before its addressee's hub took it, at `at` (epoch ms). Inside a write. */
  expired(seq: number, at: number): void {
    this.expiredStmt.run(seq, at);
  }

  /** When the event at `seq` expired unsent (undefined: it did not). */
  expiredAt(seq: number): number | undefined {
    return this.expiredAtStmt.get(seq) as number | undefined;
  }

  all(): Array<{ peer_key: string; seq: number }> {
    return this.allStmt.all() as Array<{ peer_key: string; seq: number }>;
  }
}
