/**
 * The shapes of the CLI's one command table (commands.ts): an entry per
 * command, and what a command's module gives it to run. Types only, so that
 * a module can name its options' types without loading the table.
 */

/** One option, as node:util parseArgs takes it. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** The values parseArgs gives for options `O`, and --help (every command takes it). */
export type FlagsOf<O extends OptionSpecs> = {
  [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : O[K] extends { multiple: true } ? string[] : string;
} & { help?: boolean };

/** What a command runs on: its options parsed with its table entry's, its words, and the arguments as typed. */
export interface CommandArgs<O extends OptionSpecs = OptionSpecs> {
  values: FlagsOf<O>;
  positionals: string[];
  argv: string[];
}

/** What a command's module exports for each command it runs: one shape for every command. */
export interface CommandRun<O extends OptionSpecs = OptionSpecs> {
  /** Its `--help`; absent for a command whose help its table entry makes (usage and summary). */
  help?: string | (() => string);
  /** Exit code: 0 success, 1 failure, 2 usage error. A method: a module's own options narrow what it is given. */
  run(args: CommandArgs<O>): Promise<number>;
}

/** Where `parley --help` lists a command that belongs to no group. */
export type HelpSection = 'hub' | 'conversation' | 'trust';

export interface CommandEntry {
  /** The words after "parley" as the lists show them: the command and its arguments ("say THREAD TEXT", "roster sign [--as HANDLE] [--confirm]"). */
  usage: string;
  /** Its own options as its usage line writes them, after `usage` ("[--to HANDLE] [--reply-to ID]"). */
  flags?: string;
  summary: string;
  /** Where the global help lists it; a command in a group is listed with its group. */
  section?: HelpSection;
  /** A participant's REST command: takes --as, --session, --home, --url and --json, and its help is made from this entry. */
  participant?: true;
  options: OptionSpecs;
  /**
   * The words it takes. A number or [min, max]: checked before it runs, its
   * usage said when they do not fit; true: any, which it checks itself;
   * false: none (one given is a usage error).
   */
  positionals: boolean | number | [number, number];
  /** Its module parses the arguments itself, help included (`parley hook`, which must never exit 2). */
  raw?: true;
  /** Its module, loaded only when it runs. */
  load: () => Promise<CommandRun>;
}
