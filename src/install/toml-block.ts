import { ParleyError } from '../errors/parley-error.js';
import type { TomlFileSpec } from './spec.js';

/**
 * Parley's part of a TOML config (Codex's config.toml) as one managed block
 * appended to the file between two marker comments. No TOML library is among
 * Parley's dependencies, and a block keeps the user's own text exactly as it
 * was: install appends or replaces the block, uninstall cuts it out. The
 * block holds only one table whose values this module writes itself.
 */
export const TOML_BEGIN = '# BEGIN parley (managed by "parley install"; "parley uninstall codex" removes it)';
export const TOML_END = '# END parley';

/** A TOML basic string. JSON's escapes are TOML's, except that TOML also wants DEL escaped. */
export function tomlString(value: string): string {
  return JSON.stringify(value).replace(/\x7f/g, '\\u007f');
}

export function tomlStringArray(values: string[]): string {
  return `[${values.map(tomlString).join(', ')}]`;
}

/** Where the block is: from the start of its first marker line to the end of its last. */
function findBlock(text: string): { start: number; end: number } | undefined {
  let start = 0;
  if (!text.startsWith(`${TOML_BEGIN}\n`)) {
    const at = text.indexOf(`\n${TOML_BEGIN}\n`);
    if (at < 0) return undefined;
    start = at + 1;
  }
  const close = text.indexOf(`\n${TOML_END}`, start);
  if (close < 0) return undefined;
  const lineEnd = text.indexOf('\n', close + 1);
  return { start, end: lineEnd < 0 ? text.length : lineEnd + 1 };
}

/** A dotted key or table name without quotes and spaces: `mcp_servers."parley"` → `mcp_servers.parley`. */
const normalKey = (key: string): string => key.replace(/["'\s]/g, '');

/** Refuses a file that already defines `table` (or a key inside it) outside the block, or its parent as an inline table. */
function checkFreeTable(file: string, text: string, table: string): void {
  const parent = table.split('.').slice(0, -1).join('.');
  let current = '';
  for (const line of text.split('\n')) {
    const header = /^\s*\[\[?([^\]]+)\]\]?\s*(#.*)?$/.exec(line);
    let defined: string | undefined;
    if (header) {
      current = normalKey(header[1]!);
      defined = current;
    } else {
      const key = /^\s*([A-Za-z0-9_.\-"' ]+?)\s*=/.exec(line);
      if (key) defined = current ? `${current}.${normalKey(key[1]!)}` : normalKey(key[1]!);
    }
    if (defined === undefined) continue;
    if (defined === table || defined.startsWith(`${table}.`)) {
      throw new ParleyError('CONFLICT', `${file} already defines [${table}] outside Parley's managed block; remove it (or rename the server), then install again. Nothing was written.`, { field: file });
    }
    if (!header && parent && defined === parent) {
      throw new ParleyError('CONFLICT', `${file} defines ${parent} as an inline table, which cannot take [${table}]; write it as [${parent}.NAME] tables, then install again. Nothing was written.`, { field: file });
    }
  }
}

export function addTomlBlock(file: string, text: string | undefined, spec: TomlFileSpec): string {
  const block = `${TOML_BEGIN}\n${spec.body}${TOML_END}\n`;
  const base = text ?? '';
  const found = findBlock(base);
  if (found) return base.slice(0, found.start) + block + base.slice(found.end);
  checkFreeTable(file, base, spec.table);
  if (base === '') return block;
  // A blank line sets the block apart; a file without a final newline gets one first.
  return `${base}${base.endsWith('\n') ? '' : '\n'}\n${block}`;
}

/** The text without the block (and the blank line install put before it); unchanged when the markers are gone. */
export function removeTomlBlock(text: string): string {
  const found = findBlock(text);
  if (!found) return text;
  let start = found.start;
  if (start >= 2 && text.slice(start - 2, start) === '\n\n') start -= 1;
  return text.slice(0, start) + text.slice(found.end);
}

export function hasTomlBlock(text: string): boolean {
  return findBlock(text) !== undefined;
}
