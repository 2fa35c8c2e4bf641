import { parse, TomlError } from 'smol-toml';
import { ParleyError } from '../errors/parley-error.js';
import type { TomlFileSpec } from './spec.js';

/**
 * Parley's part of a TOML config (Codex's config.toml) as one managed block
 * appended to the file between two marker comments: a block keeps the user's
 * own text exactly as it was (comments, order, layout), where parsing and
 * writing the whole file back would not. install appends or replaces the
 * block, uninstall cuts it out; the file is parsed (smol-toml) only to refuse
 * one that is not TOML or already holds the table, and to check the result.
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

/** The parsed document, or a clear refusal naming the file and where TOML says it is wrong. */
function parsed(file: string, text: string): Record<string, unknown> {
  try {
    return parse(text) as Record<string, unknown>;
  } catch (error) {
    const where = error instanceof TomlError ? ` at line ${error.line}, column ${error.column}` : '';
    const why = ((error as Error).message.split('\n')[0] ?? '').replace(/^Invalid TOML document: /, '');
    throw new ParleyError('CONFIG_INVALID', `${file} is not valid TOML${where} (${why}); fix it or move it away, then run the command again. Nothing was written.`, { field: file });
  }
}

/** The value at a dotted path of a parsed document (`mcp_servers.parley`), if any. */
function valueAt(document: Record<string, unknown>, table: string): unknown {
  return table.split('.').reduce<unknown>((node, key) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), document);
}

export function addTomlBlock(file: string, text: string | undefined, spec: TomlFileSpec): string {
  const block = `${TOML_BEGIN}\n${spec.body}${TOML_END}\n`;
  const base = text ?? '';
  const found = findBlock(base);
  const own = found ? base.slice(0, found.start) + base.slice(found.end) : base;
  // The user's own part must be TOML, and must not already hold the table: it would be a second definition.
  if (valueAt(parsed(file, own), spec.table) !== undefined) {
    throw new ParleyError('CONFLICT', `${file} already defines [${spec.table}] outside Parley's managed block; remove it (or rename the server), then install again. Nothing was written.`, { field: file });
  }
  let result: string;
  if (found) result = base.slice(0, found.start) + block + base.slice(found.end);
  else if (base === '') result = block;
  // A blank line sets the block apart; a file without a final newline gets one first.
  else result = `${base}${base.endsWith('\n') ? '' : '\n'}\n${block}`;
  // What TOML cannot extend (the parent written as an inline table or a value) shows up only in the whole.
  try {
    parse(result);
  } catch {
    const parent = spec.table.split('.').slice(0, -1).join('.');
    throw new ParleyError('CONFLICT', `${file} defines ${parent} in a form that cannot take [${spec.table}] (an inline table, say); write it as [${parent}.NAME] tables, then install again. Nothing was written.`, { field: file });
  }
  return result;
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
