import type Database from 'better-sqlite3';

/** Threads (a derived index; the log's system events are the source of truth) and memberships. */
export interface ThreadRow {
  id: string;
  session_id: string;
  kind: 'channel' | 'dm' | 'side';
  name: string;
  parent_id: string | null;
  dm_key: string | null;
  created_by: string;
  created_seq: number;
  state: string;
}

export type { Subscription } from '../schema/views.js';
import type { Subscription } from '../schema/views.js';

export interface MembershipRow {
  thread_id: string;
  participant_id: string;
  subscription: Subscription;
  invited: number;
  invite_profile: string | null;
  hard_muted: number;
  muted_by: string | null;
}

export class ThreadStore {
  private readonly insertStmt: Database.Statement;
  private readonly renameStmt: Database.Statement;
  private readonly stateStmt: Database.Statement;
  private readonly allStmt: Database.Statement;
  private readonly upsertMemberStmt: Database.Statement;
  private readonly allMembersStmt: Database.Statement;
  private readonly touchedStmt: Database.Statement;

  constructor(db: Database.Database) {
    this.insertStmt = db.prepare(
      `INSERT INTO threads (id, session_id, kind, name, parent_id, dm_key, created_by, created_seq, state)
       VALUES (@id, @session_id, @kind, @name, @parent_id, @dm_key, @created_by, @created_seq, @state)`,
    );
    this.renameStmt = db.prepare('UPDATE threads SET name = ? WHERE id = ?');
    this.stateStmt = db.prepare('UPDATE threads SET state = ? WHERE id = ?');
    this.allStmt = db.prepare('SELECT * FROM threads ORDER BY created_seq');
    this.upsertMemberStmt = db.prepare(
      `INSERT INTO memberships (thread_id, participant_id, subscription, invited, invite_profile, hard_muted, muted_by)
       VALUES (@thread_id, @participant_id, @subscription, @invited, @invite_profile, @hard_muted, @muted_by)
       ON CONFLICT (thread_id, participant_id) DO UPDATE SET
         subscription = excluded.subscription, invited = excluded.invited, invite_profile = excluded.invite_profile,
         hard_muted = excluded.hard_muted, muted_by = excluded.muted_by`,
    );
    this.allMembersStmt = db.prepare('SELECT * FROM memberships');
    // Through events_by_session: the cost is the number of events in the range, not the log's size.
    this.touchedStmt = db.prepare('SELECT DISTINCT thread_id FROM events WHERE session_id = ? AND seq > ? AND seq <= ?').pluck();
  }

  insert(row: ThreadRow): void {
    this.insertStmt.run(row);
  }

  rename(id: string, name: string): void {
    this.renameStmt.run(name, id);
  }

  saveState(id: string, stateJson: string): void {
    this.stateStmt.run(stateJson, id);
  }

  all(): ThreadRow[] {
    return this.allStmt.all() as ThreadRow[];
  }

  upsertMember(row: MembershipRow): void {
    this.upsertMemberStmt.run(row);
  }

  allMembers(): MembershipRow[] {
    return this.allMembersStmt.all() as MembershipRow[];
  }

  /** The threads of a session that have events with seq in (afterSeq, upToSeq]. */
  touchedBetween(sessionId: string, afterSeq: number, upToSeq: number): string[] {
    return this.touchedStmt.all(sessionId, afterSeq, upToSeq) as string[];
  }
}
