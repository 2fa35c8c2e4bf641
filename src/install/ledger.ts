import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { INSTALL_BACKUP_DIRNAME, INSTALL_LEDGER_FILENAME } from '../config/defaults.js';
import { ParleyError } from '../errors/parley-error.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../home/private-home.js';
import { writeFileAtomically } from '../util/atomic-write.js';
import type { ClientName, FileAdditions, Scope } from './spec.js';

/**
 * What install did, kept in the Parley home (`installs.json`) so that
 * uninstall undoes exactly that: per client, scope and folder, each file it
 * wrote, whether it created it, where its original is kept
 * (`install-backups/` in the home, out of the user's project), a digest of the
 * text it left, and the entries it added.
 */
export interface FileRecord {
  path: string;
  created: boolean;
  /** Folders install created for the file, outermost first; uninstall removes them when empty. */
  createdDirs: string[];
  /** The file as it was before the first install changed it. */
  backup?: string;
  /** sha256 of the text install left. */
  written: string;
  added: FileAdditions;
}

export interface InstallRecord {
  client: ClientName;
  scope: Scope;
  /** The project folder, or the user's home folder for --user. */
  root: string;
  handle: string;
  files: FileRecord[];
  /** The lines a project install added to the work tree's git exclude file (uninstall takes them out). */
  gitExclude?: { file: string; patterns: string[] };
}

interface Ledger {
  installs: InstallRecord[];
}

export const digest = (text: string): string => createHash('sha256').update(text).digest('hex');

export function ledgerPath(home: string): string {
  return path.join(home, INSTALL_LEDGER_FILENAME);
}

export function readLedger(home: string): InstallRecord[] {
  const file = ledgerPath(home);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  try {
    const ledger = JSON.parse(text) as Partial<Ledger>;
    if (!Array.isArray(ledger.installs)) throw new Error('no "installs" list');
    return ledger.installs;
  } catch (error) {
    throw new ParleyError('CONFIG_INVALID', `${file} is not a valid install ledger (${(error as Error).message}); fix or remove it. Nothing was written.`, { field: file });
  }
}

/** Writes the ledger (0600, atomically), or removes it once nothing is installed. */
export function writeLedger(home: string, installs: InstallRecord[]): void {
  const file = ledgerPath(home);
  if (installs.length === 0) {
    fs.rmSync(file, { force: true });
    return;
  }
  fs.mkdirSync(home, { recursive: true, mode: PRIVATE_DIR_MODE });
  writeFileAtomically(file, `${JSON.stringify({ installs }, null, 2)}\n`, PRIVATE_FILE_MODE);
}

export const sameRecord = (a: Pick<InstallRecord, 'client' | 'scope' | 'root'>, b: Pick<InstallRecord, 'client' | 'scope' | 'root'>): boolean =>
  a.client === b.client && a.scope === b.scope && a.root === b.root;

/**
 * Keeps a copy of `file`'s original text in the home (0600: user configs can
 * hold secrets). Never overwrites a copy: a name already taken gets a number.
 */
export function keepBackup(home: string, file: string, text: string): string {
  const folder = path.join(home, INSTALL_BACKUP_DIRNAME);
  fs.mkdirSync(folder, { recursive: true, mode: PRIVATE_DIR_MODE });
  const stem = `${digest(file).slice(0, 12)}-${path.basename(file)}`;
  for (let n = 1; ; n++) {
    const candidate = path.join(folder, n === 1 ? stem : `${stem}.${n}`);
    try {
      fs.writeFileSync(candidate, text, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
      return candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** Removes a backup once its original is back, and the backup folder when it is empty. */
export function dropBackup(backup: string): void {
  fs.rmSync(backup, { force: true });
  try {
    fs.rmdirSync(path.dirname(backup));
  } catch {
    // other backups are still there
  }
}
