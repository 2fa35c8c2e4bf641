import { ParleyError } from '../errors/parley-error.js';

/**
 * A client's JSON config file read and written back in its own style: the
 * same indentation (spaces, tabs, or none for a one-line file) and the same
 * final newline, so that only Parley's entries differ.
 */
export type JsonObject = Record<string, unknown>;

export interface JsonStyle {
  indent: string | undefined;
  finalNewline: boolean;
}

/** New files: two spaces, a final newline (what the clients write themselves). */
export const NEW_FILE_STYLE: JsonStyle = { indent: '  ', finalNewline: true };

export function parseJsonObject(file: string, text: string): JsonObject {
  // An empty file is an empty config (editors create them so).
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ParleyError('CONFIG_INVALID', `${file} is not valid JSON (${(error as Error).message}); fix it or move it away, then run the command again. Nothing was written.`, { field: file });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ParleyError('CONFIG_INVALID', `${file} does not hold a JSON object; fix it or move it away, then run the command again. Nothing was written.`, { field: file });
  }
  return value as JsonObject;
}

export function jsonStyleOf(text: string): JsonStyle {
  const body = text.trimEnd();
  const finalNewline = text.endsWith('\n');
  if (body === '') return NEW_FILE_STYLE;
  if (!body.includes('\n')) return { indent: undefined, finalNewline };
  const indent = /\n([ \t]+)\S/.exec(body)?.[1];
  return { indent: indent ?? NEW_FILE_STYLE.indent, finalNewline };
}

export function serializeJson(value: JsonObject, style: JsonStyle): string {
  return `${JSON.stringify(value, null, style.indent)}${style.finalNewline ? '\n' : ''}`;
}

/** Deep equality of JSON values (key order ignored). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameJson((a as JsonObject)[k], (b as JsonObject)[k]));
}
