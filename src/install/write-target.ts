import fs from 'node:fs';
import path from 'node:path';
import { ParleyError } from '../errors/parley-error.js';

/**
 * Where a change to a client's config file lands. A config kept elsewhere
 * through a symlink (dotfiles) is changed where it lives, as long as that is
 * inside the folder install works in: the project, or the user's home for
 * --user (a file the client keeps outside it, under $CODEX_HOME say, counts
 * its own folder). A symlink on the way that leads out of it, the file's or a
 * folder's, is refused unless the user says --follow-symlinks: a link planted
 * in a cloned project must not make install or uninstall change a file
 * elsewhere.
 */
export interface WriteBounds {
  /** The project folder, or the user's home folder for --user. */
  root: string;
  followSymlinks: boolean;
}

/** Past this many links in a row the path is taken as a loop, as the kernel does (ELOOP). */
const MAX_LINK_HOPS = 40;

/** The path `file` names once every symlink on its way is followed; the file (and folders) need not exist. */
export function realLocation(file: string): string {
  return resolved(path.resolve(file), 0);
}

function resolved(file: string, hops: number): string {
  try {
    return fs.realpathSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
  }
  const parent = path.dirname(file);
  if (parent === file) return file;
  const realParent = resolved(parent, hops);
  // A link whose target does not exist (yet): a write would create the target.
  if (lstatOrUndefined(file)?.isSymbolicLink()) {
    if (hops >= MAX_LINK_HOPS) throw new ParleyError('CONFLICT', `${file} leads through more than ${MAX_LINK_HOPS} symlinks (a loop?); fix the links. Nothing was changed.`, { field: file });
    return resolved(path.resolve(realParent, fs.readlinkSync(file)), hops + 1);
  }
  return path.join(realParent, path.basename(file));
}

function lstatOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file);
  } catch {
    return undefined;
  }
}

const within = (folder: string, file: string): boolean => {
  const rel = path.relative(folder, file);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
};

/** The real path a change to `file` goes to; refuses (CONFLICT) a symlink on its way that leads out of its folder. */
export function writeTarget(file: string, bounds: WriteBounds): string {
  const real = realLocation(file);
  if (bounds.followSymlinks) return real;
  const folder = within(bounds.root, file) ? bounds.root : path.dirname(file);
  const realFolder = realLocation(folder);
  if (within(realFolder, real)) return real;
  const link = firstLinkOut(folder, file, realFolder) ?? file;
  throw new ParleyError(
    'CONFLICT',
    `Cannot change ${file}: ${link} is a symlink to ${realLocation(link)}, outside ${folder}. A link planted in a project could make Parley change a file elsewhere; if you made it, run the command again with --follow-symlinks. Nothing was changed.`,
    { field: file },
  );
}

/** The first path from `folder` down to `file` that is a symlink leading out of `realFolder`. */
function firstLinkOut(folder: string, file: string, realFolder: string): string | undefined {
  let at = folder;
  for (const part of path.relative(folder, file).split(path.sep)) {
    at = path.join(at, part);
    if (lstatOrUndefined(at)?.isSymbolicLink() && !within(realFolder, realLocation(at))) return at;
  }
  return undefined;
}
