import type Database from 'better-sqlite3';

/** The roster versions a hub accepted, as their JSON documents, oldest first. */
export class RosterStore {
  private readonly allStmt: Database.Statement;
  private readonly insertStmt: Database.Statement;

  constructor(db: Database.Database) {
    this.allStmt = db.prepare('SELECT doc FROM rosters ORDER BY version');
    this.insertStmt = db.prepare('INSERT INTO rosters (version, org_id, doc, accepted_at) VALUES (?, ?, ?, ?)');
  }

  all(): unknown[] {
    return (this.allStmt.all() as Array<{ doc: string }>).map((row) => JSON.parse(row.doc) as unknown);
  }

  insert(version: number, orgId: string, doc: unknown, acceptedAt: number): void {
    this.insertStmt.run(version, orgId, JSON.stringify(doc), acceptedAt);
  }
}
