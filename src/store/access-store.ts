import type Database from 'better-sqlite3';
import type { Access } from '../schema/access.js';

/** Local mode's access overrides: one permission role per participant, set by an admin. */
export class AccessStore {
  private readonly getStmt: Database.Statement;
  private readonly setStmt: Database.Statement;

  constructor(db: Database.Database) {
    this.getStmt = db.prepare('SELECT access FROM local_access WHERE participant_id = ?');
    this.setStmt = db.prepare(
      'INSERT INTO local_access (participant_id, access) VALUES (?, ?) ON CONFLICT (participant_id) DO UPDATE SET access = excluded.access',
    );
  }

  get(participantId: string): Access | undefined {
    return (this.getStmt.get(participantId) as { access: Access } | undefined)?.access;
  }

  set(participantId: string, access: Access): void {
    this.setStmt.run(participantId, access);
  }
}
