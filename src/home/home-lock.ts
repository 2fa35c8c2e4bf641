import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { LOCK_FILENAME, LOCK_INFO_FILENAME } from '../config/defaults.js';
import { ParleyError } from '../errors/parley-error.js';
import { createPrivateFile, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './private-home.js';

/**
 * The single-writer lock on a home. It is an exclusive SQLite lock on a small
 * file of its own, so the kernel releases it when the holding process dies,
 * even by SIGKILL: there is no stale lock to clean up. Beside it, a JSON file
 * says who holds it, so a refused hub can name the running one.
 */
export interface LockHolder {
  pid: number;
  startedAt: string;
  url?: string;
  /** The hub's public key (`ed25519:…`): local clients send a credential only to a process that proves it holds it. */
  key?: string;
  hostname?: string;
}

export interface HomeLock {
  readonly home: string;
  /** Records where the holder serves (for the message a refused hub prints, and for local clients) and its key. */
  describe(info: Partial<LockHolder>): void;
  release(): void;
}

export function acquireHomeLock(home: string): HomeLock {
  return acquireExclusiveLock(home, { lockFilename: LOCK_FILENAME, infoFilename: LOCK_INFO_FILENAME, refused: lockedError });
}

/** What one exclusive lock in a home is called, and the error that names its holder when it is taken. */
export interface ExclusiveLockNames {
  lockFilename: string;
  infoFilename: string;
  refused: (home: string, holder: LockHolder | undefined) => ParleyError;
}

/** An exclusive lock in a home, held by this process until released or its death (see above). */
export function acquireExclusiveLock(home: string, names: ExclusiveLockNames): HomeLock {
  fs.mkdirSync(home, { recursive: true, mode: PRIVATE_DIR_MODE });
  const lockFile = path.join(home, names.lockFilename);
  const infoFile = path.join(home, names.infoFilename);
  createPrivateFile(lockFile);
  const db = new Database(lockFile, { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    // No journal file: the lock database holds nothing worth recovering.
    db.pragma('journal_mode = OFF');
    // A write transaction in exclusive mode keeps the file locked until the connection closes.
    db.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER)');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('DELETE FROM holder');
    db.exec('COMMIT');
  } catch (error) {
    db.close();
    if (isBusy(error)) throw names.refused(home, readHolder(infoFile));
    throw error;
  }
  let holder: LockHolder = { pid: process.pid, startedAt: new Date().toISOString() };
  const writeInfo = (): void => fs.writeFileSync(infoFile, `${JSON.stringify(holder)}\n`, { mode: PRIVATE_FILE_MODE });
  try {
    writeInfo();
  } catch (error) {
    // Not held after all (a full disk, say): the home stays free for the next try.
    db.close();
    throw error;
  }
  let released = false;
  return {
    home,
    describe(info) {
      holder = { ...holder, ...info };
      writeInfo();
    },
    release() {
      if (released) return;
      released = true;
      try {
        const current = readHolder(infoFile);
        if (current?.pid === process.pid) fs.rmSync(infoFile, { force: true });
      } finally {
        db.close();
      }
    },
  };
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

function readHolder(infoFile: string): LockHolder | undefined {
  try {
    return JSON.parse(fs.readFileSync(infoFile, 'utf8')) as LockHolder;
  } catch {
    return undefined;
  }
}

function lockedError(home: string, holder: LockHolder | undefined): ParleyError {
  const who = holder
    ? `hub pid ${holder.pid}${holder.url ? ` serving ${holder.url}` : ''}, started ${holder.startedAt}`
    : 'another hub process';
  return new ParleyError(
    'HOME_LOCKED',
    `Another hub is already running on home ${home} (${who}). Use that hub, stop it first, or pass a different --home.`,
    { details: { home, ...(holder ? { holder } : {}) } },
  );
}
