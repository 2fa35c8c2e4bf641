import fs from 'node:fs';
import path from 'node:path';
import { ParleyError } from '../errors/parley-error.js';

/** Reading and writing a client's config file in place: its mode kept, a symlink followed, never half-written. */
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

export function writeText(file: string, text: string): void {
  // A config kept elsewhere through a symlink (dotfiles) is written where it lives.
  const target = fs.existsSync(file) ? fs.realpathSync(file) : file;
  const mode = fs.existsSync(target) ? fs.statSync(target).mode & 0o7777 : undefined;
  const temporary = `${target}.parley-${process.pid}.tmp`;
  fs.writeFileSync(temporary, text, mode === undefined ? {} : { mode });
  if (mode !== undefined) fs.chmodSync(temporary, mode);
  fs.renameSync(temporary, target);
}
