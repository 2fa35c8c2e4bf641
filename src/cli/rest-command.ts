import { loadToken } from '../client/credentials.js';
import { hubUrl } from '../client/hub-address.js';
import { OneShotJson } from '../client/one-shot-json.js';
import { ParticipantRoutes } from '../client/participant-routes.js';
import { resolveHome } from '../config/home.js';
import { ParleyError } from '../errors/parley-error.js';
import type { CommandRun } from './command.js';
import { terminalJson, terminalText } from './terminal-text.js';

/**
 * The participants' REST commands (say, read, inbox, thread create…): each
 * acts through ParticipantRoutes with the participant's token (PARLEY_TOKEN,
 * or --as HANDLE [--session] from the tokens `parley join` kept in the home),
 * over one-shot requests, and prints readable text by default, JSON with --json.
 */

/** A command's option values as parseArgs gives them: the participant's options, and its own. */
export type Flags = Record<string, string | boolean | string[] | undefined>;

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

/** What one participant's command does with the hub: its words and flags in, what to print out. */
export type ParticipantRun = (api: ParticipantRoutes, args: string[], values: Flags) => Promise<Printed>;

/** A participant's command, in the shape of every command. */
export function participantCommand(run: ParticipantRun): CommandRun {
  return {
    async run({ values, positionals }) {
      const flags = values as Flags;
      const token = tokenFor(flags);
      const api = new ParticipantRoutes(new OneShotJson(await hubUrl(flags), token));
      const out = await run(api, positionals, flags);
      if (!flags.json && out.file) process.stdout.write(out.text);
      else process.stdout.write(`${flags.json ? terminalJson(out.json) : out.verbatim ? out.text : terminalText(out.text, 'lines')}\n`);
      return 0;
    },
  };
}

/** The token to act with: the one kept for --as HANDLE in its session, else PARLEY_TOKEN. */
export function tokenFor(values: { as?: unknown; home?: unknown; session?: unknown }): string {
  if (typeof values.as === 'string') {
    const home = resolveHome(typeof values.home === 'string' ? values.home : undefined);
    const session = typeof values.session === 'string' ? values.session : 'default';
    const token = loadToken(home, session, values.as);
    if (!token) throw new ParleyError('UNAUTHORIZED', `No token kept for @${values.as} in session "${session}"; run "parley join ${values.as} --session ${session}" first.`);
    return token;
  }
  const fromEnv = process.env.PARLEY_TOKEN;
  if (fromEnv) return fromEnv;
  throw new ParleyError('UNAUTHORIZED', 'No credentials: set PARLEY_TOKEN, or pass --as HANDLE (after "parley join HANDLE").');
}

/** A flag's value when it was given as text. */
export const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** A `--name JSON` flag's value, parsed; malformed JSON is INVALID_INPUT naming the flag. */
export function jsonFlag(value: unknown, name: string): unknown {
  if (typeof value !== 'string') return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw new ParleyError('INVALID_INPUT', `Invalid --${name}: it is not valid JSON.`, { field: name });
  }
}
