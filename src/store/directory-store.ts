import type Database from 'better-sqlite3';

/** Sessions, participants and who has entered which session. */
export interface SessionRow {
  id: string;
  name: string;
  created_at: number;
}

export interface ParticipantRow {
  id: string;
  handle: string;
  kind: 'agent' | 'human';
  profile: string;
  public_key: Buffer;
  created_at: number;
  /** The linked hub that hosts it (key text and name); null: hosted here. */
  hub_key: string | null;
  hub_name: string | null;
}

export class DirectoryStore {
  private readonly insertSessionStmt: Database.Statement;
  private readonly allSessionsStmt: Database.Statement;
  private readonly insertParticipantStmt: Database.Statement;
  private readonly updateProfileStmt: Database.Statement;
  private readonly updateHostStmt: Database.Statement;
  private readonly allParticipantsStmt: Database.Statement;
  private readonly insertMemberStmt: Database.Statement;
  private readonly allMembersStmt: Database.Statement;

  constructor(db: Database.Database) {
    this.insertSessionStmt = db.prepare('INSERT INTO sessions (id, name, created_at) VALUES (?, ?, ?)');
    this.allSessionsStmt = db.prepare('SELECT * FROM sessions ORDER BY created_at');
    this.insertParticipantStmt = db.prepare(
      `INSERT INTO participants (id, handle, kind, profile, public_key, created_at, hub_key, hub_name)
       VALUES (@id, @handle, @kind, @profile, @public_key, @created_at, @hub_key, @hub_name)`,
    );
    this.updateHostStmt = db.prepare('UPDATE participants SET handle = ?, kind = ?, profile = ?, hub_key = ?, hub_name = ? WHERE id = ?');
    this.updateProfileStmt = db.prepare('UPDATE participants SET kind = ?, profile = ? WHERE id = ?');
    this.allParticipantsStmt = db.prepare('SELECT * FROM participants ORDER BY created_at');
    this.insertMemberStmt = db.prepare(
      'INSERT OR IGNORE INTO session_members (session_id, participant_id, joined_at) VALUES (?, ?, ?)',
    );
    this.allMembersStmt = db.prepare('SELECT session_id, participant_id, joined_at FROM session_members');
  }

  insertSession(row: SessionRow): void {
    this.insertSessionStmt.run(row.id, row.name, row.created_at);
  }

  allSessions(): SessionRow[] {
    return this.allSessionsStmt.all() as SessionRow[];
  }

  insertParticipant(row: ParticipantRow): void {
    this.insertParticipantStmt.run(row);
  }

  updateProfile(id: string, kind: string, profileJson: string): void {
    this.updateProfileStmt.run(kind, profileJson, id);
  }

  /** A participant a linked hub hosts, as that hub now describes it. */
  updateHosted(row: Pick<ParticipantRow, 'id' | 'handle' | 'kind' | 'profile' | 'hub_key' | 'hub_name'>): void {
    this.updateHostStmt.run(row.handle, row.kind, row.profile, row.hub_key, row.hub_name, row.id);
  }

  allParticipants(): ParticipantRow[] {
    return this.allParticipantsStmt.all() as ParticipantRow[];
  }

  addMember(sessionId: string, participantId: string, joinedAt: number): void {
    this.insertMemberStmt.run(sessionId, participantId, joinedAt);
  }

  allMembers(): Array<{ session_id: string; participant_id: string; joined_at: number }> {
    return this.allMembersStmt.all() as Array<{ session_id: string; participant_id: string; joined_at: number }>;
  }
}
