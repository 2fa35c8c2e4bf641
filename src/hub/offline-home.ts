import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { STORE_FILENAME } from '../config/defaults.js';
import type { Config } from '../config/schema.js';
import { ParleyError } from '../errors/parley-error.js';
import type { Roster } from '../schema/roster.js';
import { DirectoryStore } from '../store/directory-store.js';
import { LATEST_STORE_VERSION } from '../store/migrations.js';
import { RetentionStore, type StoreFileStats } from '../store/retention-store.js';
import { RosterStore } from '../store/roster-store.js';
import { ThreadStore } from '../store/thread-store.js';
import { formatPublicKey } from '../trust/node-id.js';
import { parseRoster } from '../trust/roster.js';
import { estimateRetention, type RetainedThread } from './retention.js';

/**
 * What a home's store holds, read while no hub runs on it (`parley doctor`,
 * the roster commands): its integrity and version, the file's pages, the
 * newest roster, the participants, what retention would free; and the one
 * change made without a hub, compacting it. Read-only but for that, so it
 * never changes the store a hub will open. A home with no store yet (no hub
 * ever ran there) holds nothing.
 */
export type { StoreFileStats };

export const storeFileOf = (home: string): string => path.join(home, STORE_FILENAME);

export interface StoreInspection {
  file: string;
  /** SQLite's integrity check: "ok", or what it found. */
  integrity: string;
  /** The store's schema version. */
  version: number;
  /** Its integrity is ok and this Parley reads its version. */
  ok: boolean;
  stats: StoreFileStats;
  /** What retention with these settings would free now (only when `ok`). */
  freed?: { events: number; bytes: number; threads: number };
}

/** The store checked; undefined when the home has none. Throws SQLite's error when the file cannot be read. */
export function inspectStore(home: string, retention: Config['retention'], now: number): StoreInspection | undefined {
  return withStore(home, (db, file) => {
    const integrity = db.pragma('integrity_check', { simple: true }) as string;
    const version = db.pragma('user_version', { simple: true }) as number;
    const ok = integrity === 'ok' && version <= LATEST_STORE_VERSION;
    const retained = new RetentionStore(db);
    const stats = retained.fileStats();
    if (!ok) return { file, integrity, version, ok, stats };
    return { file, integrity, version, ok, stats, freed: estimateRetention(retained, storedThreads(db), retention, now) };
  });
}

/** The threads as retention reads them, from their rows. */
function storedThreads(db: Database.Database): RetainedThread[] {
  return new ThreadStore(db).all().map((row) => ({
    id: row.id,
    kind: row.kind,
    ...(row.parent_id === null ? {} : { parentId: row.parent_id }),
    createdSeq: row.created_seq,
    pinned: (JSON.parse(row.state) as { pinned?: unknown }).pinned === true,
  }));
}

/** The newest roster version the store holds; undefined when it holds none, or the home has no store. */
export function storedRoster(home: string): Roster | undefined {
  return withStore(home, newestRoster);
}

const newestRoster = (db: Database.Database): Roster | undefined => new RosterStore(db).all().map((doc) => parseRoster(doc)).at(-1);

export interface StoredHome {
  /** The newest roster version the store holds; undefined when it holds none. */
  roster: Roster | undefined;
  participants: Array<{ handle: string; pubkey: string }>;
}

/** The newest roster and the participants' handles and keys; STORAGE_UNAVAILABLE when the store cannot be read. */
export function readStoredHome(home: string): StoredHome {
  try {
    const stored = withStore(home, (db) => ({
      roster: newestRoster(db),
      participants: new DirectoryStore(db).allParticipants().map((row) => ({ handle: row.handle, pubkey: formatPublicKey(row.public_key) })),
    }));
    return stored ?? { roster: undefined, participants: [] };
  } catch (error) {
    const file = storeFileOf(home);
    throw new ParleyError('STORAGE_UNAVAILABLE', `Cannot read the store ${file} (${(error as Error).message}); "parley doctor" checks it.`, { details: { path: file }, cause: error });
  }
}

/**
 * Rewrites the store compactly with incremental auto_vacuum on (SQLite can
 * only switch it by a VACUUM), so that it gives back what retention frees.
 * The caller holds the home's lock, so no hub writes meanwhile. The file's
 * size before and after; undefined when the home has no store.
 */
export function vacuumStore(home: string): { file: string; before: number; after: number } | undefined {
  const file = storeFileOf(home);
  if (!fs.existsSync(file)) return undefined;
  const db = new Database(file, { fileMustExist: true });
  try {
    const before = fs.statSync(file).size;
    db.pragma('auto_vacuum = INCREMENTAL');
    db.exec('VACUUM');
    db.pragma('wal_checkpoint(TRUNCATE)');
    return { file, before, after: fs.statSync(file).size };
  } finally {
    db.close();
  }
}

/** Runs `read` on the store opened read-only; undefined when the home has none. */
function withStore<T>(home: string, read: (db: Database.Database, file: string) => T): T | undefined {
  const file = storeFileOf(home);
  if (!fs.existsSync(file)) return undefined;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return read(db, file);
  } finally {
    db.close();
  }
}
