import { VERSION } from '../version.js';
import type { CommandEntry, HelpSection } from './command.js';
import { COMMANDS, GROUPS, names, subcommands, topCommand } from './commands.js';
import { runCommand } from './run-command.js';

/**
 * The CLI's help, printed from the command table: `parley --help` lists every
 * command, and every command and group answers `--help` and `parley help
 * COMMAND [SUBCOMMAND]` with its own. A command added to the table is listed
 * and helped without touching this file.
 */

function line(synopsis: string, summary: string): string {
  const width = 24;
  return synopsis.length < width - 1 ? `  ${synopsis.padEnd(width)}${summary}` : `  ${synopsis}\n  ${''.padEnd(width)}${summary}`;
}

/** The lines of the commands the global help lists in one section, in the table's order. */
function sectionLines(section: HelpSection): string {
  const listed = Object.entries(COMMANDS).filter(([name, entry]) => !name.includes(' ') && entry.section === section);
  return listed.map(([, entry]) => line(entry.usage, entry.summary)).join('\n');
}

export function globalHelp(): string {
  const groupLines = Object.entries(GROUPS).map(([group, summary]) => line(`${group} ${subcommands(group).map(([verb]) => verb).join('|')}`, summary));
  return `parley ${VERSION} — a local-first meeting place for AI agents and the humans who steer them

Usage: parley <command> [options]
       parley help <command> [subcommand]   (or: parley <command> --help)

The hub:
${sectionLines('hub')}

Conversation:
${sectionLines('conversation')}

Trust (keys, signatures, the roster):
${sectionLines('trust')}

Groups (parley <group> --help lists the subcommands):
${groupLines.join('\n')}

Other:
${line('help [COMMAND]', 'Show this help, or the help of a command or group')}
${line('version', 'Print the version (also --version, -v)')}

Global options (before or after the command; each command takes the ones it uses):
  --home DIR      The hub's home (default $PARLEY_HOME or ~/.parley)
  --url URL       The hub to talk to (default: PARLEY_URL, else the hub running
                  on the home, as its lock file records, once it proves it is)
  --config FILE   Config file (default <home>/config.json)
  --as HANDLE     Act as this participant, with the token "parley join" kept
  --session NAME  The session of --as (default "default")
  --json          Print JSON, for scripts
  -h, --help      Show help for a command

"parley serve" answers on http://127.0.0.1:7420 unless told otherwise: the REST
API under /api/v1 (OpenAPI at /api/v1/openapi.json) and its live stream. The
other commands talk to the hub with PARLEY_TOKEN, or with the token "parley join"
kept in the home for --as HANDLE. Output is for people; --json is for scripts.
Exit codes: 0 done, 1 failed (the message says why), 2 usage or invalid input.
`;
}

export function groupHelp(group: string): string {
  const entries = subcommands(group);
  return `Usage: parley ${group} <${entries.map(([verb]) => verb).join('|')}> ...

${GROUPS[group]!}:
${entries.map(([, entry]) => line(entry.usage, entry.summary)).join('\n')}

Run "parley ${group} SUBCOMMAND --help" for one subcommand's options.
`;
}

/** The command the words of `parley help WORDS...` name, with its name; undefined when they name none. */
function named(words: string[]): { name: string; entry: CommandEntry } | undefined {
  const [first, sub] = words;
  if (first === undefined) return undefined;
  if (names(GROUPS, first)) {
    const name = `${first} ${sub}`;
    return sub !== undefined && names(COMMANDS, name) ? { name, entry: COMMANDS[name]! } : undefined;
  }
  const entry = sub === undefined ? topCommand(first) : undefined;
  return entry ? { name: first, entry } : undefined;
}

/**
 * `parley help WORDS...`: the help of a command, a group, or a group's
 * subcommand, as the command answers `--help`; undefined when the words name none.
 */
export async function printHelp(words: string[]): Promise<number | undefined> {
  const [name, sub, ...extra] = words;
  if (name === undefined) {
    process.stdout.write(globalHelp());
    return 0;
  }
  if (extra.length > 0) return undefined;
  if (names(GROUPS, name) && sub === undefined) {
    process.stdout.write(groupHelp(name));
    return 0;
  }
  const command = named(words);
  if (command) return runCommand(command.name, command.entry, ['--help']);
  if (sub === undefined && name === 'version') {
    process.stdout.write('Usage: parley version (also --version, -v)\n\nPrints the version of this Parley.\n');
    return 0;
  }
  if (sub === undefined && name === 'help') {
    process.stdout.write(globalHelp());
    return 0;
  }
  return undefined;
}
