import { createHash } from 'node:crypto';
import type { Hub } from '../../src/hub/hub.js';
import Database from 'better-sqlite3';

/**
 * What a hub has stored, read from the real SQLite database (and, for
 * meetings, which never touch the store, from the in-memory registry). Two
 * snapshots are equal only if no row was added, removed or changed: each
 * table contributes its row count and a digest of all its rows.
 *
 * Writes go through a group commit that commits at the end of the event-loop
 * turn, but reads on the same connection already see pending writes, so a
 * snapshot taken right after an awaited call is accurate.
 */
export const SNAPSHOT_TABLES = [
  'sessions',
  'participants',
  'session_members',
  'threads',
  'memberships',
  'events',
  'cursors',
  'deliveries',
  'requests',
] as const;

export type SnapshotTable = (typeof SNAPSHOT_TABLES)[number];

export interface MeetingSnapshot {
  session: string;
  name: string;
  members: string[];
  latest: number;
}

export interface StoreSnapshot {
  counts: Record<SnapshotTable, number>;
  /** sha256 over every row of each table (order-independent). */
  digests: Record<SnapshotTable, string>;
  maxSeq: number;
  /** The hub's in-memory view: next seq to hand out and what it holds. */
  memory: { nextSeq: number; sessions: number; participants: number; threads: number; members: number };
  meetings: MeetingSnapshot[];
}

function rowsOf(hub: Hub, table: SnapshotTable): string[] {
  const rows = hub.internals.store.db.prepare(`SELECT * FROM ${table}`).all();
  return rows.map((row) => JSON.stringify(row)).sort();
}

export function snapshot(hub: Hub): StoreSnapshot {
  const db = hub.internals.store.db;
  const counts = {} as Record<SnapshotTable, number>;
  const digests = {} as Record<SnapshotTable, string>;
  for (const table of SNAPSHOT_TABLES) {
    const rows = rowsOf(hub, table);
    counts[table] = rows.length;
    digests[table] = createHash('sha256').update(rows.join('\n')).digest('hex');
  }
  const maxSeq = (db.prepare('SELECT COALESCE(MAX(seq), 0) AS n FROM events').get() as { n: number }).n;
  // The search index (search.db) is derived from committed events only; the events digest covers it.
  const { meetings: registry } = hub.internals.ctx;
  const meetings = hub.sessions().flatMap((session) =>
    registry.list(session.id).map((m) => ({
      session: session.name,
      name: m.name,
      members: m.who().map((w) => w.handle).sort(),
      latest: m.ring.latest,
    })),
  );
  const { state } = hub.internals.ctx;
  const memory = {
    nextSeq: state.nextSeq,
    sessions: state.sessions.size,
    participants: state.participants.size,
    threads: state.threads.size,
    members: [...state.threads.values()].reduce((n, thread) => n + thread.members.size, 0),
  };
  return { counts, digests, maxSeq, memory, meetings };
}

/**
 * The stored rows of a hub running in another process, read through a
 * read-only connection to its database file (WAL lets it read beside the
 * hub's writer): per table, a row count and a digest of every row.
 */
export function fileSnapshot(dbFile: string): { counts: Record<string, number>; digests: Record<string, string> } {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    const counts: Record<string, number> = {};
    const digests: Record<string, string> = {};
    for (const table of [...SNAPSHOT_TABLES, 'tokens']) {
      const rows = db.prepare(`SELECT * FROM ${table}`).all().map((row) => JSON.stringify(row)).sort();
      counts[table] = rows.length;
      digests[table] = createHash('sha256').update(rows.join('\n')).digest('hex');
    }
    return { counts, digests };
  } finally {
    db.close();
  }
}
