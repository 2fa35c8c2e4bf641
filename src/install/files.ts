import fs from 'node:fs';
import path from 'node:path';
import { ParleyError } from '../errors/parley-error.js';
import { writeFileAtomically } from '../util/atomic-write.js';
import { writeTarget, type WriteBounds } from './write-target.js';

/**
 * Reading and writing a client's config file in place: its mode kept, a
 * symlink followed only where write-target.ts allows, never half-written.
 */
export function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    const why = code === 'EISDIR' ? 'it is a folder' : code === 'EACCES' ? 'permission denied' : (error as Error).message;
    throw new ParleyError('CONFIG_INVALID', `Cannot read ${file}: ${why}. Nothing was written.`, { field: file });
  }
}

/** Refuses a file whose folder cannot be made because something on its way is a file: before anything is written. */
export function checkFolders(file: string): void {
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const stat = fs.statSync(dir, { throwIfNoEntry: false });
    if (stat === undefined) continue;
    if (!stat.isDirectory()) throw new ParleyError('CONFIG_INVALID', `Cannot write ${file}: ${dir} is a file, not a folder. Nothing was written.`, { field: dir });
    return;
  }
}

/** Creates the missing folders above `file`; returns those it created, outermost first. */
export function makeParents(file: string): string[] {
  const missing: string[] = [];
  for (let dir = path.dirname(file); !fs.existsSync(dir); dir = path.dirname(dir)) missing.unshift(dir);
  for (const dir of missing) fs.mkdirSync(dir);
  return missing;
}

/** Removes the folders install created, innermost first, as long as they are empty. */
export function removeEmptyFolders(created: string[]): void {
  for (const dir of [...created].reverse()) {
    try {
      fs.rmdirSync(dir);
    } catch {
      return;
    }
  }
}

export function writeText(file: string, text: string, bounds: WriteBounds): void {
  const target = writeTarget(file, bounds);
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  writeFileAtomically(target, text, stat === undefined ? undefined : stat.mode & 0o7777);
}

/** Removes the file (a symlink itself, not what it leads to), once its way is known to stay in bounds. */
export function removeFile(file: string, bounds: WriteBounds): void {
  writeTarget(file, bounds);
  fs.rmSync(file, { force: true });
}
