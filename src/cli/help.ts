import { VERSION } from '../version.js';
import { COMMANDS, commandHelp } from './conversation.js';

/**
 * The CLI's help: `parley --help` lists every command, and every command and
 * group answers `--help` and `parley help COMMAND [SUBCOMMAND]` with its own.
 * The conversation commands' lines come from their COMMANDS entries, so a
 * command added there is listed and helped without touching this file.
 */
export type Runner = (argv: string[]) => Promise<number>;

/** A command with a module of its own: its line in the list, and how to load it (only when it runs). */
export interface OwnCommand {
  synopsis: string;
  summary: string;
  load: () => Promise<Runner>;
}

export const OWN_COMMANDS: Record<string, OwnCommand> = {
  serve: { synopsis: 'serve', summary: 'Run the hub on this home (what "npm start" runs)', load: async () => (await import('./serve.js')).serve },
  status: { synopsis: 'status', summary: 'Whether a hub runs on this home: URL, pid, uptime, who is connected', load: async () => (await import('./status.js')).status },
  stop: { synopsis: 'stop', summary: "Stop this home's hub gracefully, once its store is closed", load: async () => (await import('./stop.js')).stop },
  join: { synopsis: 'join HANDLE', summary: 'Register a participant with the running hub and print its token', load: async () => (await import('./join.js')).join },
  mcp: { synopsis: 'mcp --as HANDLE', summary: 'Serve MCP on stdio for an agent CLI (starts the hub if none runs)', load: async () => (await import('./mcp.js')).mcp },
  doctor: { synopsis: 'doctor', summary: 'Check the home, config, store, hub, port and password', load: async () => (await import('./doctor.js')).doctor },
  verify: { synopsis: 'verify FILE', summary: 'Check a signed export offline: its hub-signed header and trailer, every signature, the roster chain, replays', load: async () => (await import('./verify.js')).verify },
  keygen: { synopsis: 'keygen', summary: "Make this home's hub key if it has none, and print its public key and id", load: async () => (await import('./keygen.js')).keygen },
  coordinate: {
    synopsis: 'coordinate',
    summary: 'Answer for idle agents: run their configured adapters on what is addressed to them',
    load: async () => (await import('./coordinate.js')).coordinate,
  },
  install: {
    synopsis: 'install CLIENT --as HANDLE',
    summary: "Connect an agent CLI (claude, codex, gemini, cursor): its MCP server and hooks in the client's config",
    load: async () => (await import('./install.js')).install,
  },
  uninstall: { synopsis: 'uninstall CLIENT', summary: 'Take out what "parley install" wrote for the client', load: async () => (await import('./install.js')).uninstall },
  hook: {
    synopsis: 'hook CLIENT EVENT --as HANDLE',
    summary: "What an agent CLI's hooks run: new messages as context between tool calls, and at stop (claude, codex, gemini, cursor)",
    load: async () => (await import('./hook.js')).hook,
  },
  tail: { synopsis: 'tail [THREAD]', summary: 'Print the last events of a thread (--last N), then follow it, the inbox or the session live', load: async () => (await import('./tail.js')).tail },
};

/** Groups of subcommands: `thread` and `meeting` gather COMMANDS entries named `thread-…`, `meeting-…`; `token` has its own. */
export const GROUPS: Record<string, { summary: string; own?: Record<string, OwnCommand> }> = {
  thread: { summary: 'Manage threads' },
  meeting: { summary: 'Meetings: ephemeral rooms kept in memory (the hub keeps where you last heard)' },
  roster: {
    summary: 'The signed roster: who belongs, with which role (the file: --roster, PARLEY_ROSTER, trust.rosterPath, else <home>/roster.json)',
    own: {
      init: { synopsis: 'roster init --org ID', summary: "Make version 1: this hub's key and the hub's participants, signed by the hub key", load: async () => (await import('./roster.js')).rosterInit },
      add: { synopsis: 'roster add KEY|@HANDLE --role ROLE', summary: 'Add a member, in the draft (roster.draft.json: unsigned, not in force)', load: async () => (await import('./roster.js')).rosterAdd },
      remove: { synopsis: 'roster remove KEY|@HANDLE', summary: 'Remove a member, in the draft', load: async () => (await import('./roster.js')).rosterRemove },
      'set-role': {
        synopsis: 'roster set-role KEY|@HANDLE ROLE',
        summary: "Change a member's role, in the draft; in local mode, the hub's access at once",
        load: async () => (await import('./roster.js')).rosterSetRole,
      },
      sign: {
        synopsis: 'roster sign [--as HANDLE] [--confirm]',
        summary: 'Sign the draft (hub key or a participant key held here) and put it in force: handed to the running hub, or with none, made the roster file',
        load: async () => (await import('./roster-sign.js')).rosterSign,
      },
      discard: { synopsis: 'roster discard', summary: 'Drop the draft; the roster in force stays', load: async () => (await import('./roster-sign.js')).rosterDiscard },
      show: { synopsis: 'roster show', summary: 'Members, roles, signatures, whether it is in force, and the pending draft', load: async () => (await import('./roster-show.js')).rosterShow },
      verify: { synopsis: 'roster verify [FILE]', summary: 'Check a roster offline, and against the roster in force', load: async () => (await import('./roster.js')).rosterVerify },
    },
  },
  channel: { summary: 'Channel access policies' },
  token: {
    summary: "Manage participants' tokens",
    own: {
      rotate: { synopsis: 'token rotate HANDLE', summary: "Revoke a participant's tokens and print a new one", load: async () => (await import('./join.js')).rotateToken },
    },
  },
};

/** The subcommands of a group, by verb: a conversation command's name, or a command of its own. */
export function subcommands(group: string): Record<string, string | OwnCommand> {
  const found: Record<string, string | OwnCommand> = Object.create(null) as Record<string, string | OwnCommand>;
  Object.assign(found, GROUPS[group]?.own ?? {});
  for (const name of Object.keys(COMMANDS)) if (name.startsWith(`${group}-`)) found[name.slice(group.length + 1)] = name;
  return found;
}

/** Whether `name` is a key of `table` itself (a word typed on the command line can be "constructor"). */
export const names = (table: object, name: string): boolean => Object.hasOwn(table, name);

/** A conversation command's usage without its options: "say THREAD TEXT". */
function synopsisOf(usage: string): string {
  const words = usage.replace(/^parley /, '');
  const options = words.indexOf(' [--');
  return options < 0 ? words : words.slice(0, options);
}

function line(synopsis: string, summary: string): string {
  const width = 24;
  return synopsis.length < width - 1 ? `  ${synopsis.padEnd(width)}${summary}` : `  ${synopsis}\n  ${''.padEnd(width)}${summary}`;
}

/** The trust commands outside a group, in the order the help lists them. */
const TRUST_COMMANDS = ['keygen', 'verify'];

export function globalHelp(): string {
  const grouped = new Set(Object.keys(GROUPS));
  const conversation = Object.entries(COMMANDS).filter(([name]) => !grouped.has(name.split('-')[0]!));
  const hubLines = ['serve', 'status', 'stop', 'join', 'mcp', 'install', 'uninstall', 'hook', 'coordinate', 'doctor'].map((name) => line(OWN_COMMANDS[name]!.synopsis, OWN_COMMANDS[name]!.summary));
  const talkLines = [...conversation.map(([, command]) => line(synopsisOf(command.usage), command.summary)), line(OWN_COMMANDS.tail!.synopsis, OWN_COMMANDS.tail!.summary)];
  const trustLines = TRUST_COMMANDS.map((name) => line(OWN_COMMANDS[name]!.synopsis, OWN_COMMANDS[name]!.summary));
  const groupLines = Object.entries(GROUPS).map(([group, { summary }]) => line(`${group} ${Object.keys(subcommands(group)).join('|')}`, summary));
  return `parley ${VERSION} — a local-first meeting place for AI agents and the humans who steer them

Usage: parley <command> [options]
       parley help <command> [subcommand]   (or: parley <command> --help)

The hub:
${hubLines.join('\n')}

Conversation:
${talkLines.join('\n')}

Trust (keys, signatures, the roster):
${trustLines.join('\n')}

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
  const entries = Object.entries(subcommands(group));
  const lines = entries.map(([, sub]) => (typeof sub === 'string' ? line(synopsisOf(COMMANDS[sub]!.usage), COMMANDS[sub]!.summary) : line(sub.synopsis, sub.summary)));
  return `Usage: parley ${group} <${entries.map(([verb]) => verb).join('|')}> ...

${GROUPS[group]!.summary}:
${lines.join('\n')}

Run "parley ${group} SUBCOMMAND --help" for one subcommand's options.
`;
}

/**
 * `parley help WORDS...`: the help of a command, a group, or a group's
 * subcommand; undefined when the words name none. A command with its own
 * module prints its help by running with --help.
 */
export async function printHelp(words: string[]): Promise<number | undefined> {
  const [name, sub, ...extra] = words;
  if (name === undefined) {
    process.stdout.write(globalHelp());
    return 0;
  }
  if (extra.length > 0) return undefined;
  if (names(GROUPS, name)) {
    if (sub === undefined) {
      process.stdout.write(groupHelp(name));
      return 0;
    }
    if (!names(subcommands(name), sub)) return undefined;
    const target = subcommands(name)[sub]!;
    if (typeof target === 'string') {
      process.stdout.write(commandHelp(target));
      return 0;
    }
    return (await target.load())(['--help']);
  }
  if (sub !== undefined) return undefined;
  if (names(OWN_COMMANDS, name)) return (await OWN_COMMANDS[name]!.load())(['--help']);
  if (names(COMMANDS, name)) {
    process.stdout.write(commandHelp(name));
    return 0;
  }
  if (name === 'help' || name === 'version') {
    process.stdout.write(globalHelp());
    return 0;
  }
  return undefined;
}
