/**
 * What an install writes, described per client (claude.ts, codex.ts, ...) and
 * applied by one engine (plan.ts). A client says which files it touches and
 * what goes in each; the engine merges, backs up, records and undoes.
 */
export const CLIENT_NAMES = ['claude', 'codex', 'gemini', 'cursor'] as const;
export type ClientName = (typeof CLIENT_NAMES)[number];

export type Scope = 'project' | 'user';

/** How the written commands start Parley: absolute paths, and only the options that differ from the defaults. */
export interface Launch {
  /** node's absolute path (process.execPath). */
  node: string;
  /** This checkout's bin/parley, absolute. */
  bin: string;
  handle: string;
  /** Named only when not "default". */
  session?: string;
  /** Always named: a PARLEY_HOME in the client's environment must not move the agent to another home. */
  home: string;
  /** Named only when the install was given one (--url or PARLEY_URL); otherwise the hub is found through the home. */
  url?: string;
}

/** The client-side timeouts and limits install writes, from the hub config of the home. */
export interface HookTiming {
  quickSeconds: number;
  /** Above the hub's stop wait (agents.stayAvailableSeconds) by a margin. */
  stopSeconds: number;
  /** Consecutive stop continuations (agents.maxStopContinuations), for clients that take a loop limit. */
  stopLoopLimit: number;
  mcpStartupSeconds: number;
}

export interface InstallContext {
  scope: Scope;
  /** The project folder (project scope) or the user's home folder (user scope). */
  root: string;
  launch: Launch;
  timing: HookTiming;
}

/** One hook install adds: in grouped files (Claude, Codex, Gemini) a matcher group holding one handler, in Cursor's a handler. */
export interface HookEntry {
  event: string;
  item: Record<string, unknown>;
  /** The command the handler runs: how uninstall recognises Parley's handlers. */
  command: string;
}

/**
 * Whether a project install keeps the file out of git (keep-out-of-git.ts).
 * Every file install writes holds this machine's paths and the agent's
 * handle, so committed it would break every other checkout. A file the client
 * keeps for one person (`always`) is kept out whenever install writes it; a
 * shared project config (`if-created`) only when install created it — then
 * all of it is Parley's — never one that was there before: that one is the
 * user's (perhaps committed), and hiding it would hide their own settings too.
 */
export type KeepOutOfGit = 'always' | 'if-created';

/** A JSON file and Parley's entries in it. */
export interface JsonFileSpec {
  format: 'json';
  path: string;
  keepOutOfGit?: KeepOutOfGit;
  mcpServer?: { path: string[]; name: string; entry: Record<string, unknown> };
  hooks?: { grouped: boolean; entries: HookEntry[] };
  /** A value install adds to a list of approvals, unless `unlessTrue` names a key that already approves everything. */
  approval?: { key: string; value: string; unlessTrue?: string };
  /** Top-level keys the file format needs, set only when absent (Cursor's hooks.json `version`). */
  required?: Record<string, unknown>;
}

/** A TOML file, where install appends a managed block. */
export interface TomlFileSpec {
  format: 'toml';
  path: string;
  keepOutOfGit?: KeepOutOfGit;
  /** The table header the block defines ("mcp_servers.parley"); an existing one outside the block is refused. */
  table: string;
  /** The block's lines between its markers. */
  body: string;
}

export type FileSpec = JsonFileSpec | TomlFileSpec;

export interface ClientSpec {
  name: ClientName;
  /** The client's own name, for messages ("Claude Code"). */
  title: string;
  files: (context: InstallContext) => FileSpec[];
  /** What the user should know after installing: trust, approvals, reloads. */
  notes: (context: InstallContext) => string[];
}

/** What install added to one file, as the ledger keeps it: uninstall removes exactly this. */
export interface FileAdditions {
  format: 'json' | 'toml';
  mcpServer?: { path: string[]; name: string };
  hooks?: { grouped: boolean; commands: string[] };
  approval?: { key: string; value: string };
  required?: string[];
  tomlBlock?: boolean;
}
