import { VERSION } from '../version.js';

/**
 * The `parley` command line. Exit codes: 0 success, 1 failure, 2 usage error;
 * errors are one line on stderr saying what to do.
 *
 * Start-up is part of every command (hooks run them on each tool call), so
 * this module loads nothing else until it knows the command, and then only
 * the command table (commands.ts, which loads no command's module) and that
 * command's module: `--version` loads no more than this file, `parley hook`
 * goes straight to its module, and the conversation commands never load the
 * hub, the store or the schemas.
 */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

const isHelpFlag = (word: string | undefined): boolean => word === '--help' || word === '-h';

export async function main(argv: string[]): Promise<number> {
  const split = splitGlobalOptions(argv);
  if ('usage' in split) {
    process.stderr.write(`parley: ${split.usage}; run "parley --help".\n`);
    return EXIT_USAGE;
  }
  // Global options written before the command go to it first, as if written after it ("--help" alone is the help).
  const { globals } = split;
  const command = split.command ?? globals.find(isHelpFlag);
  const rest = split.command === undefined ? [] : [...globals, ...split.rest];
  if (command === 'version' || command === '--version' || command === '-v') {
    process.stdout.write(`${VERSION}\n`);
    return EXIT_OK;
  }
  // An agent CLI's hook runs on every tool call: straight to its own small module, before the command table.
  if (command === 'hook' && !rest.some(isHelpFlag)) return (await import('./hook.js')).hook(rest);
  // The words naming the command, for the hint after a usage error ("thread create").
  let named = command ?? '';
  try {
    const table = await import('./commands.js');
    if (command === undefined || command === 'help' || isHelpFlag(command)) {
      const words = command === 'help' ? split.rest : [];
      const answered = await (await import('./help.js')).printHelp(words);
      if (answered === undefined) return await unknownCommand(words.join(' '));
      return command === undefined ? EXIT_USAGE : answered;
    }
    let entry = table.topCommand(command);
    let args = rest;
    if (table.names(table.GROUPS, command)) {
      const [verb, ...after] = split.rest;
      const verbs = table.subcommands(command).map(([name]) => name);
      if (isHelpFlag(verb) || (verb === undefined && globals.some(isHelpFlag))) {
        process.stdout.write((await import('./help.js')).groupHelp(command));
        return EXIT_OK;
      }
      if (verb === undefined) {
        process.stderr.write(`parley: ${command} needs a subcommand (${verbs.join(', ')}); run "parley ${command} --help".\n`);
        return EXIT_USAGE;
      }
      if (!verbs.includes(verb)) return await unknownCommand(`${command} ${verb}`, `parley ${command} --help`);
      named = `${command} ${verb}`;
      entry = table.COMMANDS[named];
      args = [...globals, ...after];
    }
    if (!entry) return await unknownCommand(command);
    return await (await import('./run-command.js')).runCommand(named, entry, args);
  } catch (error) {
    return await reportError(error, named);
  }
}

async function unknownCommand(words: string, hint = 'parley --help'): Promise<number> {
  const { terminalText } = await import('./terminal-text.js');
  process.stderr.write(`parley: unknown command "${terminalText(words, 'one line')}"; run "${hint}" for the list.\n`);
  return EXIT_USAGE;
}

/**
 * One line on stderr: a usage mistake (exit 2) names the help to read; anything else says what failed (exit 1).
 * Messages quote what was typed and what a hub answered: made safe for a terminal, on one line.
 */
async function reportError(error: unknown, named: string): Promise<number> {
  const { terminalText } = await import('./terminal-text.js');
  const usage = usageMessage(error);
  if (usage) {
    process.stderr.write(`parley: ${terminalText(usage, 'one line')}; run "parley ${terminalText(named, 'one line')} --help".\n`);
    return EXIT_USAGE;
  }
  const [{ toParleyError }, { styleFor }] = await Promise.all([import('../errors/parley-error.js'), import('./style.js')]);
  const parleyError = toParleyError(error);
  process.stderr.write(`${styleFor(process.stderr).error('parley:')} ${terminalText(parleyError.messageFor('cli'), 'one line')}\n`);
  return parleyError.code === 'CONFIG_INVALID' || parleyError.code === 'INVALID_INPUT' ? EXIT_USAGE : EXIT_FAILURE;
}

/**
 * parseArgs' errors, said in Parley's words: its own message for an unknown
 * option ends in an unbalanced quote and speaks of positionals.
 */
function usageMessage(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (!(error instanceof Error) || typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS')) return undefined;
  const quoted = /'([^']*)'/.exec(error.message)?.[1] ?? '';
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option "${quoted}" (a text that starts with "-" goes after "--", as in: -- "${quoted}")`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return `option "${quoted.replace(/ <value>$/, '')}" needs a value`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument "${quoted}"`;
    default:
      return error.message.replace(/\.$/, '');
  }
}

/**
 * The options `parley --help` lists as global may come before the command
 * (`parley --home DIR join x`) as well as after it: they are taken off the
 * front and handed to the command ahead of its own arguments, so it parses
 * them as if written after it, and one that has no use for an option refuses
 * it as it would there. Here rather than in a module of its own: every
 * command, `--version` included, starts by loading only this file.
 * Each global option, and whether it takes a value:
 */
const GLOBAL_OPTIONS: Readonly<Record<string, boolean>> = {
  '--home': true,
  '--url': true,
  '--config': true,
  '--as': true,
  '--session': true,
  '--json': false,
  '--help': false,
  '-h': false,
};

interface SplitArgs {
  /** The first word that is not a global option: the command (or "--version"), if any. */
  command: string | undefined;
  /** The global options written before the command, as written. */
  globals: string[];
  /** What follows the command. */
  rest: string[];
}

/** Splits argv at the command; a usage message when an option before it is not a global one, or lacks its value. */
function splitGlobalOptions(argv: string[]): SplitArgs | { usage: string } {
  const globals: string[] = [];
  let at = 0;
  while (at < argv.length) {
    const word = argv[at]!;
    if (!word.startsWith('-') || word === '--version' || word === '-v') break;
    const name = word.includes('=') ? word.slice(0, word.indexOf('=')) : word;
    if (!Object.hasOwn(GLOBAL_OPTIONS, name)) {
      return { usage: `unknown option "${word}" before the command (the options that may go there: ${Object.keys(GLOBAL_OPTIONS).join(', ')})` };
    }
    const takesValue = GLOBAL_OPTIONS[name];
    globals.push(word);
    at += 1;
    if (takesValue && !word.includes('=')) {
      const value = argv[at];
      if (value === undefined) return { usage: `option "${word}" needs a value` };
      globals.push(value);
      at += 1;
    }
  }
  return { command: argv[at], globals, rest: argv.slice(at + 1) };
}
