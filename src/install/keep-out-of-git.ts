import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { excludePattern } from './git-exclude.js';
import type { FileChange } from './plan.js';

/**
 * Which of the files a project install writes git should not show (each
 * client spec says, per file, with `keepOutOfGit`: see spec.ts), listed in
 * the work tree's exclude file. User-scope files are left alone: a home
 * folder under git (dotfiles) tracks what its owner chose.
 */
export interface GitExclusion {
  /** The exclude file git reads for this work tree (the shared one of a linked worktree, a submodule's own). */
  file: string;
  /** One anchored pattern per file kept out. */
  patterns: string[];
  /** The files kept out, from the project folder. */
  paths: string[];
  /** Files install writes that git will still show (from the project folder), and why. */
  shown: Array<{ path: string; why: string }>;
}

function git(cwd: string, args: string[]): { ok: boolean; out: string } {
  const run = spawnSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  // No git on the PATH (run.error) reads as "not a work tree": there is nothing git could show then.
  return { ok: run.error === undefined && run.status === 0, out: run.stdout ?? '' };
}

/** The git work tree holding `folder`: its top and the exclude file git reads for it; undefined outside one. */
export function gitWorkTree(folder: string): { top: string; excludeFile: string } | undefined {
  const found = git(folder, ['rev-parse', '--show-toplevel', '--git-path', 'info/exclude']);
  const [top, exclude] = found.out.split('\n');
  if (!found.ok || !top || !exclude) return undefined;
  // --git-path answers relative to the folder it ran in (or absolute).
  return { top, excludeFile: path.resolve(folder, exclude) };
}

const tracked = (top: string, relative: string): boolean => git(top, ['--literal-pathspecs', 'ls-files', '--error-unmatch', '--', relative]).ok;

/** What to keep out of git for the planned changes of a project install; undefined outside a git work tree. */
export function planGitExclusion(root: string, changes: FileChange[]): GitExclusion | undefined {
  const tree = gitWorkTree(root);
  if (!tree) return undefined;
  const exclusion: GitExclusion = { file: tree.excludeFile, patterns: [], paths: [], shown: [] };
  for (const change of changes) {
    if (change.keepOutOfGit === undefined) continue;
    const created = change.previous?.created ?? change.before === undefined;
    const relative = path.relative(tree.top, change.path);
    const pattern = excludePattern(relative);
    const shownAs = path.relative(root, change.path);
    if (change.keepOutOfGit === 'if-created' && !created) {
      exclusion.shown.push({ path: shownAs, why: 'it was there before install (shared project config): keep Parley\'s entry, which holds this machine\'s paths, out of commits' });
    } else if (tracked(tree.top, relative)) {
      exclusion.shown.push({ path: shownAs, why: 'git tracks it, which an exclude cannot undo: keep Parley\'s entries, which hold this machine\'s paths, out of commits' });
    } else if (pattern === undefined) {
      exclusion.shown.push({ path: shownAs, why: 'its name holds a line break, which an exclude file cannot list: keep it out of commits' });
    } else {
      exclusion.patterns.push(pattern);
      exclusion.paths.push(shownAs);
    }
  }
  return exclusion;
}
