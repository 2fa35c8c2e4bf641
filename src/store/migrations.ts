import path from 'node:path';
import type Database from 'better-sqlite3';
import { ParleyError } from '../errors/parley-error.js';
import { MIGRATIONS, type Migration, type MigrationEnv } from './schema-versions.js';

/**
 * Runs the store's schema versions (schema-versions.ts): the version lives in
 * `PRAGMA user_version`; each runs once, in order, inside one transaction.
 */
export { MIGRATIONS, type Migration, type MigrationEnv } from './schema-versions.js';

export const LATEST_STORE_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

export function currentVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Refuses, before anything is changed, a store written by a newer Parley. */
export function assertKnownVersion(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): void {
  const version = currentVersion(db);
  const latest = migrations[migrations.length - 1]?.version ?? 0;
  if (version > latest) {
    throw new ParleyError(
      'STORE_VERSION',
      `The store is at schema version ${version}, newer than this Parley understands (${latest}). Upgrade Parley or use another home.`,
    );
  }
}

/** Brings the store to the latest version; refuses a store written by a newer Parley. */
export function migrate(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS, env: MigrationEnv = { home: homeOf(db) }): { from: number; to: number } {
  const from = currentVersion(db);
  const latest = migrations[migrations.length - 1]?.version ?? 0;
  if (from > latest) {
    throw new ParleyError(
      'STORE_VERSION',
      `The store is at schema version ${from}, newer than this Parley understands (${latest}). Upgrade Parley or use another home.`,
    );
  }
  const pending = migrations.filter((migration) => migration.version > from);
  const apply = (migration: Migration) => {
    if (typeof migration.up === 'string') db.exec(migration.up);
    else migration.up(db, env);
    db.pragma(`user_version = ${migration.version}`);
  };
  if (from === 0 && isEmpty(db)) {
    // A new store: every step in one transaction, so one commit (one fsync) instead of one per
    // step, and no rewrite, since an empty file has no old bytes. Every test and hub opens one.
    db.transaction(() => pending.forEach(apply))();
    return { from, to: currentVersion(db) };
  }
  let vacuum = false;
  for (const migration of pending) {
    db.transaction(() => apply(migration))();
    vacuum ||= migration.vacuumAfter === true;
  }
  if (vacuum) rewriteFile(db);
  return { from, to: currentVersion(db) };
}

function isEmpty(db: Database.Database): boolean {
  return db.prepare('SELECT 1 FROM sqlite_schema LIMIT 1').get() === undefined;
}

/** The directory of the database file: the home (an in-memory database has none). */
function homeOf(db: Database.Database): string {
  return db.name === ':memory:' || db.name === '' ? process.cwd() : path.dirname(path.resolve(db.name));
}

/**
 * Rebuilds the database file so no freed page keeps old bytes, and empties the
 * write-ahead log on both sides of it (its earlier frames may hold them too).
 * Incremental auto-vacuum is switched on here, since only a rebuild can.
 */
function rewriteFile(db: Database.Database): void {
  const wal = db.pragma('journal_mode', { simple: true }) === 'wal';
  if (wal) db.pragma('wal_checkpoint(TRUNCATE)');
  db.pragma('auto_vacuum = INCREMENTAL');
  db.exec('VACUUM');
  if (wal) db.pragma('wal_checkpoint(TRUNCATE)');
}
