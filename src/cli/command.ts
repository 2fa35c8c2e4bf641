import type { Caller } from './event-lines.js';

/**
 * One conversation command of the `parley` CLI: its usage and summary (the
 * help lists them), its own options beyond the common ones, how many
 * positional arguments it takes, and the REST calls it makes.
 */
export interface Command {
  usage: string;
  summary: string;
  options?: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }>;
  positionals: number | [number, number];
  run: (call: Caller, args: string[], values: Record<string, unknown>) => Promise<Printed>;
}

/**
 * What a command prints: `json` with --json, `text` otherwise. Text is made
 * safe for a terminal as it is printed (terminal-text.ts), unless it is
 * `verbatim`: event lines, whose parts from others are escaped before they are
 * coloured (event-lines.ts), or JSON whose exact bytes are the point.
 */
export interface Printed {
  json: unknown;
  text: string;
  verbatim?: true;
}
