import type Database from 'better-sqlite3';

const SIGNED_THROUGH_KEY = 'signed_through';

/**
 * What signing needs to remember per author: its epoch, and the last
 * sender_seq given in each thread. Written in the same batch as the events
 * that use them.
 */
export class SenderStore {
  private readonly epochStmt: Database.Statement;
  private readonly setEpochStmt: Database.Statement;
  private readonly lastSeqStmt: Database.Statement;
  private readonly setLastSeqStmt: Database.Statement;
  private readonly forgetStmt: Database.Statement;
  private readonly forgetCrossingStmt: Database.Statement;
  private readonly signedThroughStmt: Database.Statement;
  private readonly setSignedThroughStmt: Database.Statement;

  constructor(db: Database.Database) {
    this.epochStmt = db.prepare('SELECT epoch FROM sender_epochs WHERE participant_id = ?');
    this.setEpochStmt = db.prepare('INSERT INTO sender_epochs (participant_id, epoch) VALUES (?, ?) ON CONFLICT (participant_id) DO UPDATE SET epoch = excluded.epoch');
    this.forgetStmt = db.prepare('DELETE FROM sender_epochs');
    this.forgetCrossingStmt = db.prepare('UPDATE sender_seqs SET crossing_seq = NULL');
    this.signedThroughStmt = db.prepare(`SELECT value FROM meta WHERE key = '${SIGNED_THROUGH_KEY}'`);
    this.setSignedThroughStmt = db.prepare(`INSERT INTO meta (key, value) VALUES ('${SIGNED_THROUGH_KEY}', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`);
    this.lastSeqStmt = db.prepare('SELECT seq, crossing_seq FROM sender_seqs WHERE participant_id = ? AND thread_id = ?');
    this.setLastSeqStmt = db.prepare(
      'INSERT INTO sender_seqs (participant_id, thread_id, seq, crossing_seq) VALUES (?, ?, ?, ?) ON CONFLICT (participant_id, thread_id) DO UPDATE SET seq = excluded.seq, crossing_seq = excluded.crossing_seq',
    );
  }

  epochOf(participantId: string): Buffer | undefined {
    return (this.epochStmt.get(participantId) as { epoch: Buffer } | undefined)?.epoch;
  }

  /** Drops every author's epoch: each gets a new one at its next event (the store lost counters), whose first event follows none. */
  forgetEpochs(): void {
    this.forgetStmt.run();
    this.forgetCrossingStmt.run();
  }

  setEpoch(participantId: string, epoch: Buffer): void {
    this.setEpochStmt.run(participantId, epoch);
  }

  /** The last sender_seq given to `participantId` in `threadId` (0 for none). */
  lastSeq(participantId: string, threadId: string): number {
    return this.counters(participantId, threadId).seq;
  }

  /** The last sender_seq given in the thread (0: none), and the last given to an event that crosses to linked hubs (null: none in this epoch, or not known). */
  counters(participantId: string, threadId: string): { seq: number; crossing: number | null } {
    const row = this.lastSeqStmt.get(participantId, threadId) as { seq: number; crossing_seq: number | null } | undefined;
    return { seq: row?.seq ?? 0, crossing: row?.crossing_seq ?? null };
  }

  setLastSeq(participantId: string, threadId: string, seq: number, crossing: number | null): void {
    this.setLastSeqStmt.run(participantId, threadId, seq, crossing);
  }

  /**
   * The seq up to which every event the hub could sign has its signature
   * stored (undefined: never recorded, as in a store from before signatures
   * were made after the append, when every event was signed as it was written).
   */
  signedThrough(): number | undefined {
    const row = this.signedThroughStmt.get() as { value: string } | undefined;
    return row ? Number(row.value) : undefined;
  }

  setSignedThrough(seq: number): void {
    this.setSignedThroughStmt.run(String(seq));
  }
}
