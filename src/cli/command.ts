import type { Caller } from './event-lines.js';

/**
 * One conversation command of the `parley` CLI: its usage line, its summary
 * for the help, its own options, how many words it takes, and what it does
 * with one REST caller (authenticated as the participant).
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
 * `file` text is a file's bytes: printed exactly, without a line feed added,
 * so that redirecting it gives the same file as --out.
 */
export interface Printed {
  json: unknown;
  text: string;
  verbatim?: true;
  file?: true;
}
