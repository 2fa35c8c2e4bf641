import { parseArgs } from 'node:util';
import type { CommandEntry, FlagsOf, OptionSpecs } from './command.js';

/**
 * How every command runs from its table entry: its arguments parsed with the
 * entry's options (the one place the CLI calls parseArgs, but for the hook's
 * own), its help, its words counted, then its module loaded and run.
 * parseArgs' errors are said in Parley's words by main.ts.
 */
const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const;

export function parseCommandArgs<O extends OptionSpecs>(argv: string[], options: O, allowPositionals: boolean): { values: FlagsOf<O>; positionals: string[] } {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals, options: { ...options, ...HELP_OPTION } });
  return { values: values as FlagsOf<O>, positionals };
}

/** The whole usage line of an entry: "parley say THREAD TEXT [--to HANDLE] [--reply-to ID]". */
export const usageLine = (entry: CommandEntry): string => `parley ${entry.usage}${entry.flags ? ` ${entry.flags}` : ''}`;

/** The help a participant's REST command gets from its entry (`parley say --help`, `parley help say`). */
export function participantHelp(entry: CommandEntry): string {
  return `Usage: ${usageLine(entry)} [--as HANDLE] [--session NAME] [--home DIR] [--url URL] [--json]\n\n${entry.summary}.\nAuthenticates with PARLEY_TOKEN, or with the token "parley join" kept for --as HANDLE.\n`;
}

/** Runs the command `name` (its words: "thread create") on its arguments; the exit code. */
export async function runCommand(name: string, entry: CommandEntry, argv: string[]): Promise<number> {
  if (entry.raw) return (await entry.load()).run({ values: {}, positionals: [], argv });
  const { values, positionals } = parseCommandArgs(argv, entry.options, entry.positionals !== false);
  if (values.help) {
    const help = entry.participant ? participantHelp(entry) : (await entry.load()).help;
    process.stdout.write(typeof help === 'function' ? help() : (help ?? participantHelp(entry)));
    return 0;
  }
  if (typeof entry.positionals !== 'boolean') {
    const [min, max] = Array.isArray(entry.positionals) ? entry.positionals : [entry.positionals, entry.positionals];
    if (positionals.length < min || positionals.length > max) {
      process.stderr.write(`parley: usage: ${usageLine(entry)}; run "parley ${name} --help".\n`);
      return 2;
    }
  }
  return (await entry.load()).run({ values, positionals, argv });
}
