import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomically } from '../util/atomic-write.js';
import { readText } from './files.js';

/**
 * Parley's lines in a git exclude file (`.git/info/exclude`: git's own,
 * uncommitted ignore list for one clone) as one marked block: install adds a
 * line per file it keeps out of git, uninstall takes its lines out again and
 * the block once it is empty. The user's own lines stay as they are.
 */
export const EXCLUDE_BEGIN = '# BEGIN parley (files "parley install" wrote with this machine\'s paths; "parley uninstall" takes them out)';
export const EXCLUDE_END = '# END parley';

/** The pattern that matches exactly the file at `relative` (from the work tree's top), or undefined when no pattern can. */
export function excludePattern(relative: string): string | undefined {
  // A pattern is one line; git reads no escape for a line break.
  if (/[\r\n]/.test(relative)) return undefined;
  const escaped = relative
    .split(path.sep)
    .join('/')
    .replace(/[\\*?[]/g, (c) => `\\${c}`)
    // Trailing spaces are dropped unless escaped.
    .replace(/ +$/, (spaces) => spaces.replace(/ /g, '\\ '));
  // Anchored at the top, so it matches that file and no namesake in a subfolder.
  return `/${escaped}`;
}

interface Split {
  before: string[];
  inside: string[];
  after: string[];
}

/** The file's lines around Parley's block; undefined when it holds no block. */
function splitBlock(lines: string[]): Split | undefined {
  const begin = lines.indexOf(EXCLUDE_BEGIN);
  if (begin < 0) return undefined;
  const end = lines.indexOf(EXCLUDE_END, begin + 1);
  if (end < 0) return undefined;
  return { before: lines.slice(0, begin), inside: lines.slice(begin + 1, end), after: lines.slice(end + 1) };
}

const linesOf = (text: string): string[] => (text === '' ? [] : text.replace(/\n$/, '').split('\n'));
const textOf = (lines: string[]): string => (lines.length === 0 ? '' : `${lines.join('\n')}\n`);

function write(file: string, text: string): void {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  writeFileAtomically(file, text, stat === undefined ? undefined : stat.mode & 0o7777);
}

/** Adds the patterns not yet in the block (creating the block, and the file, if need be); returns those added. */
export function addExcludes(file: string, patterns: string[]): string[] {
  const lines = linesOf(readText(file) ?? '');
  const block = splitBlock(lines);
  const missing = [...new Set(patterns)].filter((p) => !block?.inside.includes(p));
  if (missing.length === 0) return [];
  const next = block ? [...block.before, EXCLUDE_BEGIN, ...block.inside, ...missing, EXCLUDE_END, ...block.after] : [...lines, EXCLUDE_BEGIN, ...missing, EXCLUDE_END];
  fs.mkdirSync(path.dirname(file), { recursive: true });
  write(file, textOf(next));
  return missing;
}

/** Takes the patterns out of the block, and the block once nothing is left in it; returns those taken out. */
export function removeExcludes(file: string, patterns: string[]): string[] {
  const text = readText(file);
  const block = text === undefined ? undefined : splitBlock(linesOf(text));
  if (!block) return [];
  const removed = block.inside.filter((line) => patterns.includes(line));
  if (removed.length === 0) return [];
  const inside = block.inside.filter((line) => !patterns.includes(line));
  write(file, textOf(inside.length === 0 ? [...block.before, ...block.after] : [...block.before, EXCLUDE_BEGIN, ...inside, EXCLUDE_END, ...block.after]));
  return removed;
}
