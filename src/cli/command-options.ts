// The options of the commands: the table (commands.ts) lists them, and each
// command module names its values' types by them. Apart from the table, so
// that a command module importing its options does not import the table
// that loads it.

/** The three kinds of option value, as node:util parseArgs spells them. */
export const string = { type: 'string' } as const;
export const strings = { type: 'string', multiple: true } as const;
export const flag = { type: 'boolean' } as const;

// The options of the commands with modules of their own, which name their values' types by these.
export const SERVE_OPTIONS = { home: string, config: string, host: string, port: string, roster: string, 'peer-port': string, 'peer-host': string, set: strings } as const;
export const PEER_SELF_OPTIONS = { home: string, json: flag } as const;
export const PEER_OPTIONS = { home: string, json: flag } as const;
export const PEER_BLOCK_OPTIONS = { home: string, json: flag, for: string } as const;
export const STATUS_OPTIONS = { home: string, json: flag } as const;
export const STOP_OPTIONS = { home: string, timeout: string } as const;
export const JOIN_OPTIONS = { kind: string, client: string, model: string, role: strings, nickname: string, 'wake-on': string, session: string, home: string, url: string, json: flag } as const;
export const MCP_OPTIONS = { as: string, session: string, rooms: string, kind: string, client: string, model: string, role: strings, home: string, url: string } as const;
export const INSTALL_OPTIONS = { as: string, dir: string, user: flag, 'dry-run': flag, session: string, home: string, url: string, 'follow-symlinks': flag } as const;
export const UNINSTALL_OPTIONS = { dir: string, user: flag, 'dry-run': flag, home: string, 'follow-symlinks': flag } as const;
// The hook reads these itself (its entry is raw): loading this table would cost every tool call a module.
export const HOOK_OPTIONS = { as: string, session: string, home: string, url: string } as const;
export const COORDINATE_OPTIONS = { home: string, config: string, url: string, set: strings } as const;
export const DOCTOR_OPTIONS = { home: string, url: string, config: string, json: flag, vacuum: flag } as const;
export const TAIL_OPTIONS = { inbox: flag, since: string, last: string, as: string, session: string, home: string, url: string, json: flag } as const;
export const KEYGEN_OPTIONS = { home: string, json: flag } as const;
export const VERIFY_OPTIONS = { roster: string, 'no-gaps': flag, json: flag } as const;
export const ROSTER_OPTIONS = { home: string, config: string, roster: string, url: string, json: flag } as const;
export const ROSTER_INIT_OPTIONS = { ...ROSTER_OPTIONS, org: string } as const;
export const ROSTER_ADD_OPTIONS = { ...ROSTER_OPTIONS, role: string, archive: flag, from: string } as const;
export const ROSTER_SIGN_OPTIONS = { ...ROSTER_OPTIONS, as: string, confirm: flag } as const;
export const ROSTER_IMPORT_OPTIONS = { ...ROSTER_OPTIONS, confirm: flag } as const;
export const TOKEN_ROTATE_OPTIONS = { session: string, home: string, url: string, json: flag } as const;

/** What every participant's REST command takes: who it acts as, where the hub is, and JSON output. */
export const PARTICIPANT_OPTIONS = { as: string, session: string, home: string, url: string, json: flag } as const;
