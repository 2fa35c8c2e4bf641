import fs from 'node:fs';
import path from 'node:path';
import {
  ADMIN_TOKEN_FILENAME,
  CONFIG_FILENAME,
  CREDENTIALS_FILENAME,
  HUB_LOG_FILENAME,
  LOCK_FILENAME,
  LOCAL_SOCKET_FILENAME,
  LOCK_INFO_FILENAME,
  PEERS_FILENAME,
  SEARCH_FILENAME,
  STORE_FILENAME,
} from '../config/defaults.js';
import { KEYS_DIRNAME } from '../trust/key-files.js';

/**
 * The home holds the hub password (config), tokens and every message, so it
 * is its user's alone: the directory 0700, Parley's files in it 0600. SQLite
 * gives a database's -wal, -shm and -journal files the database file's own
 * mode, so creating each database file 0600 before SQLite opens it covers
 * those too. No process-wide umask is set: the hub may run inside another
 * program (openHub), whose files are not ours to change.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

const DATABASES = [STORE_FILENAME, SEARCH_FILENAME, LOCK_FILENAME];
/** Every file Parley keeps in a home. */
export const HOME_FILES: readonly string[] = [
  ...DATABASES.flatMap((db) => [db, `${db}-wal`, `${db}-shm`, `${db}-journal`]),
  LOCK_INFO_FILENAME,
  ADMIN_TOKEN_FILENAME,
  CREDENTIALS_FILENAME,
  CONFIG_FILENAME,
  HUB_LOG_FILENAME,
  PEERS_FILENAME,
  // The hub's socket (0600, in a 0700 home): a crashed hub may leave it behind.
  LOCAL_SOCKET_FILENAME,
  // A directory: its key files are made 0600 and checked on every read (src/trust/key-files.ts).
  KEYS_DIRNAME,
];

/**
 * Creates the home private, or makes an existing one private: Parley's files
 * lose any access by group and others. The directory itself is tightened when
 * it is Parley's (see isParleyHome); a directory with other things in it (a
 * project folder, $HOME, /tmp) keeps its mode, and the returned warning says so.
 */
export function makeHomePrivate(home: string): { warning?: string } {
  const isNew = !fs.existsSync(home);
  fs.mkdirSync(home, { recursive: true, mode: PRIVATE_DIR_MODE });
  try {
    for (const name of HOME_FILES) tighten(path.join(home, name), 'file');
    if (isNew || isParleyHome(home)) {
      tighten(home, 'directory');
      return {};
    }
  } catch (error) {
    // Not the owner (a shared home): the hub may still be able to use it; say so and go on.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
    return { warning: `Cannot make the home ${home} private: ${(error as Error).message}. Its owner should run "chmod 700 ${home}" and "chmod 600" on its files.` };
  }
  const mode = fs.statSync(home).mode & 0o777;
  if ((mode & 0o077) === 0) return {};
  return {
    warning: `The home ${home} is open to other users (mode ${mode.toString(8)}) and holds files that are not Parley's, so its mode is left alone; Parley's own files in it are private. Run "chmod 700 ${home}" or use a home of its own.`,
  };
}

/**
 * Creates `file` (if missing) readable and writable by its owner only, before SQLite or a write opens it.
 * `inExistingDir`: the directory must exist already (a file made while a hub runs: a home removed under
 * the hub is not made again).
 */
export function createPrivateFile(file: string, options: { inExistingDir?: boolean } = {}): void {
  if (options.inExistingDir !== true) fs.mkdirSync(path.dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
  fs.closeSync(fs.openSync(file, 'a', PRIVATE_FILE_MODE));
  tighten(file, 'file');
}

/** Parley's: holding nothing but Parley's files (left-over temporary ones too), or already a store; never a shared (sticky) directory like /tmp. */
function isParleyHome(home: string): boolean {
  if ((fs.statSync(home).mode & 0o1000) !== 0) return false;
  const names = fs.readdirSync(home);
  const parleys = (name: string): boolean => HOME_FILES.some((file) => name === file || name.startsWith(`${file}.`));
  return names.every(parleys) || names.includes(STORE_FILENAME);
}

/** Drops group and other access; leaves symbolic links (and what they point to) alone. */
function tighten(file: string, kind: 'file' | 'directory'): void {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const matches = kind === 'file' ? stat.isFile() : stat.isDirectory();
  if (matches && (stat.mode & 0o077) !== 0) fs.chmodSync(file, stat.mode & 0o700);
}
