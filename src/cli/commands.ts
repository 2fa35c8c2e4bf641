import { DEFAULT_CLI_HISTORY_LIMIT } from '../config/defaults.js';
import type { CommandEntry, OptionSpecs } from './command.js';
import { COORDINATE_OPTIONS, DOCTOR_OPTIONS, HOOK_OPTIONS, INSTALL_OPTIONS, JOIN_OPTIONS, KEYGEN_OPTIONS, MCP_OPTIONS, PARTICIPANT_OPTIONS, PEER_BLOCK_OPTIONS, PEER_OPTIONS, PEER_SELF_OPTIONS, ROSTER_ADD_OPTIONS, ROSTER_IMPORT_OPTIONS, ROSTER_INIT_OPTIONS, ROSTER_OPTIONS, ROSTER_SIGN_OPTIONS, SERVE_OPTIONS, STATUS_OPTIONS, STOP_OPTIONS, TAIL_OPTIONS, TOKEN_ROTATE_OPTIONS, UNINSTALL_OPTIONS, VERIFY_OPTIONS, flag, string, strings } from './command-options.js';


/**
 * Every command of the `parley` CLI, in one table: main.ts dispatches from it
 * and help.ts prints from it. An entry names its usage, summary and options,
 * and loads its module only when it runs, so that loading the table costs a
 * command nothing: it imports no module of its own. A command in a group is
 * keyed by its words ("thread create"). The order is the help's.
 */

/** A participant's REST command: one request (or a few) as the participant, printed by rest-command.ts. */
function talk(entry: Omit<CommandEntry, 'participant' | 'options'> & { options?: OptionSpecs }): CommandEntry {
  return { section: 'conversation', ...entry, participant: true, options: { ...PARTICIPANT_OPTIONS, ...entry.options } };
}

const posting = () => import('./posting-commands.js');
const reading = () => import('./reading-commands.js');
const inbox = () => import('./inbox-commands.js');
const people = () => import('./people-commands.js');
const threads = () => import('./thread-commands.js');
const requests = () => import('./request-commands.js');
const subscriptions = () => import('./subscription-commands.js');
const steering = () => import('./steering-commands.js');
const meetings = () => import('./meeting-commands.js');
const rosterEdit = () => import('./roster-edit.js');
const rosterSign = () => import('./roster-sign.js');

export const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  serve: { section: 'hub', usage: 'serve', summary: 'Run the hub on this home (what "npm start" runs)', options: SERVE_OPTIONS, positionals: false, load: async () => (await import('./serve.js')).serve },
  status: { section: 'hub', usage: 'status', summary: 'Whether a hub runs on this home: URL, pid, uptime, who is connected', options: STATUS_OPTIONS, positionals: false, load: async () => (await import('./status.js')).status },
  stop: { section: 'hub', usage: 'stop', summary: "Stop this home's hub gracefully, once its store is closed", options: STOP_OPTIONS, positionals: false, load: async () => (await import('./stop.js')).stop },
  join: { section: 'hub', usage: 'join HANDLE', summary: 'Register a participant with the running hub and print its token', options: JOIN_OPTIONS, positionals: true, load: async () => (await import('./join.js')).join },
  mcp: { section: 'hub', usage: 'mcp --as HANDLE', summary: 'Serve MCP on stdio for an agent CLI (starts the hub if none runs)', options: MCP_OPTIONS, positionals: false, load: async () => (await import('./mcp.js')).mcp },
  install: {
    section: 'hub',
    usage: 'install CLIENT --as HANDLE',
    summary: "Connect an agent CLI (claude, codex, gemini, cursor): its MCP server and hooks in the client's config",
    options: INSTALL_OPTIONS,
    positionals: true,
    load: async () => (await import('./install.js')).install,
  },
  uninstall: { section: 'hub', usage: 'uninstall CLIENT', summary: 'Take out what "parley install" wrote for the client', options: UNINSTALL_OPTIONS, positionals: true, load: async () => (await import('./install.js')).uninstall },
  hook: {
    section: 'hub',
    usage: 'hook CLIENT EVENT --as HANDLE',
    summary: "What an agent CLI's hooks run: new messages as context between tool calls, and at stop (claude, codex, gemini, cursor)",
    options: HOOK_OPTIONS,
    positionals: true,
    raw: true,
    load: async () => (await import('./hook.js')).hookCommand,
  },
  coordinate: {
    section: 'hub',
    usage: 'coordinate',
    summary: 'Answer for idle agents: run their configured adapters on what is addressed to them',
    options: COORDINATE_OPTIONS,
    positionals: false,
    load: async () => (await import('./coordinate.js')).coordinate,
  },
  doctor: { section: 'hub', usage: 'doctor', summary: 'Check the home, config, store, hub, port and password', options: DOCTOR_OPTIONS, positionals: false, load: async () => (await import('./doctor.js')).doctor },

  say: talk({ usage: 'say THREAD TEXT', flags: '[--to HANDLE] [--reply-to ID]', summary: 'Post a message to a thread', options: { to: string, 'reply-to': string }, positionals: 2, load: async () => (await posting()).say }),
  dm: talk({ usage: 'dm HANDLE TEXT', summary: 'Send a direct message', positionals: 2, load: async () => (await posting()).dm }),
  read: talk({ usage: 'read THREAD', flags: '[--limit N]', summary: 'Read what is new in a thread since your cursor, and mark it read', options: { limit: string }, positionals: 1, load: async () => (await reading()).read }),
  history: talk({
    usage: 'history THREAD',
    flags: '[--limit N]',
    summary: `Show a thread's most recent events, oldest first (default ${DEFAULT_CLI_HISTORY_LIMIT}); marks nothing read`,
    options: { limit: string },
    positionals: 1,
    load: async () => (await reading()).history,
  }),
  inbox: talk({
    usage: 'inbox',
    flags: '[--peek] [--limit N]',
    summary: 'What needs your attention, by priority; marks what it shows read (--peek looks without marking)',
    options: { peek: flag, limit: string },
    positionals: 0,
    load: async () => (await inbox()).inbox,
  }),
  wait: talk({
    usage: 'wait',
    flags: '[--timeout MS]',
    summary: 'Block until something wakes you (or the timeout), then show your inbox and mark it read',
    options: { timeout: string },
    positionals: 0,
    load: async () => (await inbox()).wait,
  }),
  ack: talk({ usage: 'ack ID [ID ...]', summary: 'Acknowledge direct items (DMs, requests, mentions)', positionals: [1, 1000], load: async () => (await inbox()).ack }),
  whoami: talk({
    usage: 'whoami',
    flags: '[--key]',
    summary: 'Who you are on the hub: handle, id, access (permission role) and how it is decided; --key adds your public key',
    options: { key: flag },
    positionals: 0,
    load: async () => (await people()).whoami,
  }),
  who: talk({ usage: 'who', summary: 'Presence of everyone in the session: connected, waiting or offline', positionals: 0, load: async () => (await people()).who }),
  threads: talk({ usage: 'threads', summary: 'Threads of the session with unread counts', positionals: 0, load: async () => (await threads()).threads }),
  search: talk({ usage: 'search WORDS', flags: '[--thread THREAD]', summary: 'Full-text search in the session', options: { thread: string }, positionals: 1, load: async () => (await reading()).search }),
  request: talk({
    usage: 'request HANDLE INTENT',
    flags: '[--params JSON] [--text TEXT] [--thread THREAD] [--reply-to REQUEST_ID]',
    summary: 'Send a request',
    options: { params: string, text: string, thread: string, 'reply-to': string },
    positionals: 2,
    load: async () => (await requests()).request,
  }),
  respond: talk({
    usage: 'respond REQUEST_ID Accepted|Rejected|Completed|Failed',
    flags: '[--text TEXT] [--result JSON]',
    summary: 'Respond to a request (REQUEST_ID: the id, or its short id as the inbox shows it)',
    options: { text: string, result: string },
    positionals: 2,
    load: async () => (await requests()).respond,
  }),
  subscribe: talk({
    usage: 'subscribe THREAD',
    summary: 'Subscribe yourself to a thread: its messages reach your inbox (also undoes unsubscribe and quiet)',
    positionals: 1,
    load: async () => (await subscriptions()).subscribe,
  }),
  unsubscribe: talk({
    usage: 'unsubscribe THREAD',
    summary: 'Unsubscribe yourself from a thread: its messages stop reaching your inbox (mentions of you still do)',
    positionals: 1,
    load: async () => (await subscriptions()).unsubscribe,
  }),
  quiet: talk({
    usage: 'quiet THREAD',
    summary: 'Quiet a thread for yourself: its messages stay in your inbox at low priority and never wake you (to silence someone else, see "parley mute")',
    positionals: 1,
    load: async () => (await subscriptions()).quiet,
  }),
  mute: talk({
    usage: 'mute THREAD HANDLE ...',
    summary: 'Hard-mute other participants in a thread (steering): their posts there fail until unmuted. To quiet a thread for yourself, use "parley quiet THREAD"',
    positionals: [2, 64],
    load: async () => (await steering()).mute,
  }),
  unmute: talk({ usage: 'unmute THREAD HANDLE ...', summary: 'Lift the hard mute of participants in a thread', positionals: [2, 64], load: async () => (await steering()).unmute }),
  pause: talk({ usage: 'pause THREAD', summary: 'Pause a thread for non-humans', positionals: 1, load: async () => (await steering()).pause }),
  resume: talk({ usage: 'resume THREAD', summary: 'Resume a paused thread', positionals: 1, load: async () => (await steering()).resume }),
  pin: talk({ usage: 'pin THREAD', summary: 'Pin a thread: retention keeps all of it', positionals: 1, load: async () => (await steering()).pin }),
  unpin: talk({ usage: 'unpin THREAD', summary: 'Unpin a thread: retention prunes it again', positionals: 1, load: async () => (await steering()).unpin }),
  prod: talk({ usage: 'prod THREAD HANDLE ...', summary: 'Prod participants to respond', positionals: [2, 64], load: async () => (await steering()).prod }),
  done: talk({ usage: 'done THREAD', summary: 'Mark a thread done', positionals: 1, load: async () => (await steering()).done }),
  invite: talk({ usage: 'invite THREAD HANDLE', summary: 'Invite a participant into a thread', positionals: 2, load: async () => (await steering()).invite }),
  export: talk({
    usage: 'export THREAD',
    flags: '[--format markdown|jsonl|signed] [--signed] [--out FILE]',
    summary: 'Export a thread (--signed: for "parley verify", with signatures and rosters)',
    options: { format: string, signed: flag, out: string },
    positionals: 1,
    load: async () => (await import('./export-command.js')).exportThread,
  }),
  tail: {
    section: 'conversation',
    usage: 'tail [THREAD]',
    summary: 'Print the last events of a thread (--last N), then follow it, the inbox or the session live',
    options: TAIL_OPTIONS,
    positionals: true,
    load: async () => (await import('./tail.js')).tail,
  },

  keygen: { section: 'trust', usage: 'keygen', summary: "Make this home's hub key if it has none, and print its public key and id", options: KEYGEN_OPTIONS, positionals: false, load: async () => (await import('./keygen.js')).keygen },
  verify: {
    section: 'trust',
    usage: 'verify FILE',
    summary: 'Check a signed export offline: its hub-signed header and trailer, every signature, the roster chain, replays',
    options: VERIFY_OPTIONS,
    positionals: true,
    load: async () => (await import('./verify.js')).verify,
  },

  'thread create': talk({
    usage: 'thread create NAME',
    flags: '[--member HANDLE ...]',
    summary: 'Create a channel',
    options: { member: strings },
    positionals: 1,
    load: async () => (await threads()).threadCreate,
  }),
  'thread rename': talk({ usage: 'thread rename THREAD NAME', summary: 'Rename a thread', positionals: 2, load: async () => (await threads()).threadRename }),
  'thread side': talk({
    usage: 'thread side PARENT TITLE',
    flags: '[--from EVENT_ID] [--member HANDLE ...]',
    summary: 'Open a side channel from a thread',
    options: { from: string, member: strings },
    positionals: 2,
    load: async () => (await threads()).threadSide,
  }),
  'thread close': talk({ usage: 'thread close SIDE SUMMARY', summary: 'Close a side channel, posting its summary back into the parent', positionals: 2, load: async () => (await threads()).threadClose }),

  'meeting list': talk({ usage: 'meeting list', summary: 'The meetings of the session: how many are in each, and its latest line', positionals: 0, load: async () => (await meetings()).meetingList }),
  'meeting join': talk({ usage: 'meeting join NAME', summary: 'Join a meeting (the first join starts it)', positionals: 1, load: async () => (await meetings()).meetingJoin }),
  'meeting leave': talk({ usage: 'meeting leave NAME', summary: 'Leave a meeting', positionals: 1, load: async () => (await meetings()).meetingLeave }),
  'meeting who': talk({ usage: 'meeting who NAME', summary: 'Who is in a meeting, with their role and when they joined', positionals: 1, load: async () => (await meetings()).meetingWho }),
  'meeting status': talk({
    usage: 'meeting status NAME',
    flags: '[--last-heard N]',
    summary: 'A meeting at a glance: who is in, the lines it keeps, how many you have not heard',
    options: { 'last-heard': string },
    positionals: 1,
    load: async () => (await meetings()).meetingStatus,
  }),
  'meeting say': talk({ usage: 'meeting say NAME TEXT', summary: 'Say something in a meeting (joins it if need be)', positionals: 2, load: async () => (await meetings()).meetingSay }),
  'meeting hear': talk({
    usage: 'meeting hear NAME',
    flags: '[--last-heard N] [--limit N]',
    summary: 'Hear what others said in a meeting since you last heard (the hub keeps your place; --last-heard N: after line N)',
    options: { 'last-heard': string, limit: string },
    positionals: 1,
    load: async () => (await meetings()).meetingHear,
  }),

  'peer self': {
    usage: 'peer self',
    flags: '[--json]',
    summary: 'This hub as its peers know it: key, id, name, where it listens, the participants it hosts',
    options: PEER_SELF_OPTIONS,
    positionals: false,
    load: async () => (await import('./peer-self.js')).peerSelf,
  },
  'peer add': {
    usage: 'peer add MULTIADDR',
    flags: '[--json]',
    summary: 'Keep a hub of the roster in this home and dial it (now, and after every restart)',
    options: PEER_OPTIONS,
    positionals: true,
    load: async () => (await import('./peer-links.js')).peerAdd,
  },
  'peer list': {
    usage: 'peer list',
    flags: '[--json]',
    summary: 'The hubs this one links to: state, last seen, queued, drops by reason',
    options: PEER_OPTIONS,
    positionals: false,
    load: async () => (await import('./peer-links.js')).peerList,
  },
  'peer remove': {
    usage: 'peer remove KEY|MULTIADDR',
    flags: '[--json]',
    summary: 'Forget a kept hub and close its links',
    options: PEER_OPTIONS,
    positionals: true,
    load: async () => (await import('./peer-links.js')).peerRemove,
  },
  'peer block': {
    usage: 'peer block KEY',
    flags: '[--for DURATION] [--json]',
    summary: 'Cut the link to a hub for a while (10m unless --for says): a partition on purpose',
    options: PEER_BLOCK_OPTIONS,
    positionals: true,
    load: async () => (await import('./peer-block.js')).peerBlock,
  },
  'peer unblock': {
    usage: 'peer unblock KEY',
    flags: '[--json]',
    summary: 'Lift a block: the hub is dialled again',
    options: PEER_OPTIONS,
    positionals: true,
    load: async () => (await import('./peer-block.js')).peerUnblock,
  },

  'roster init': {
    usage: 'roster init --org ID',
    summary: "Make version 1: this hub's key and the hub's participants, signed by the hub key",
    options: ROSTER_INIT_OPTIONS,
    positionals: true,
    load: async () => (await import('./roster-init.js')).rosterInit,
  },
  'roster add': {
    usage: 'roster add KEY|@HANDLE --role ROLE',
    flags: '[--archive] | --from FILE [--role ROLE]',
    summary: 'Add a member, or a hub and its participants (--from: a "peer self --json" file), in the draft (roster.draft.json: unsigned, not in force)',
    options: ROSTER_ADD_OPTIONS,
    positionals: true,
    load: async () => (await rosterEdit()).rosterAdd,
  },
  'roster remove': { usage: 'roster remove KEY|@HANDLE', summary: 'Remove a member, in the draft', options: ROSTER_OPTIONS, positionals: true, load: async () => (await rosterEdit()).rosterRemove },
  'roster set-role': {
    usage: 'roster set-role KEY|@HANDLE ROLE',
    summary: "Change a member's role, in the draft; in local mode, the hub's access at once",
    options: ROSTER_OPTIONS,
    positionals: true,
    load: async () => (await rosterEdit()).rosterSetRole,
  },
  'roster sign': {
    usage: 'roster sign [--as HANDLE] [--confirm]',
    summary: 'Sign the draft (hub key or a participant key held here) and put it in force: handed to the running hub, or with none, made the roster file',
    options: ROSTER_SIGN_OPTIONS,
    positionals: true,
    load: async () => (await rosterSign()).rosterSign,
  },
  'roster discard': { usage: 'roster discard', summary: 'Drop the draft; the roster in force stays', options: ROSTER_OPTIONS, positionals: true, load: async () => (await rosterSign()).rosterDiscard },
  'roster show': {
    usage: 'roster show',
    summary: 'Members, roles, signatures, whether it is in force, and the pending draft',
    options: ROSTER_OPTIONS,
    positionals: true,
    load: async () => (await import('./roster-show.js')).rosterShow,
  },
  'roster import': {
    usage: 'roster import FILE',
    flags: '[--confirm]',
    summary: "Hand a signed roster (another hub's, say) to this home's hub: taken when it holds none, or when newer and signed by its admins",
    options: ROSTER_IMPORT_OPTIONS,
    positionals: true,
    load: async () => (await import('./roster-import.js')).rosterImport,
  },
  'roster verify': { usage: 'roster verify [FILE]', summary: 'Check a roster offline, and against the roster in force', options: ROSTER_OPTIONS, positionals: true, load: async () => (await import('./roster-verify.js')).rosterVerify },

  'channel policy': talk({
    usage: 'channel policy NAME',
    flags: '[--readers SEL ...] [--writers SEL ...] [--admins SEL ...] [--retention-hours N] [--retention-messages N] [--no-history-fetch|--history-fetch]',
    summary:
      "Show a channel's access policy, or set it (admins): each SEL is @handle, ed25519:… or a role (observer, member, operator, admin), comma-separated or repeated; \"none\" lists no one",
    options: { readers: strings, writers: strings, admins: strings, 'retention-hours': string, 'retention-messages': string, 'no-history-fetch': flag, 'history-fetch': flag },
    positionals: 1,
    load: async () => (await import('./channel-commands.js')).channelPolicy,
  }),

  'token rotate': { usage: 'token rotate HANDLE', summary: "Revoke a participant's tokens and print a new one", options: TOKEN_ROTATE_OPTIONS, positionals: true, load: async () => (await import('./join.js')).rotateToken },
};

/** The groups of subcommands, in the help's order: `parley <group> <verb>` runs the entry keyed "<group> <verb>". */
export const GROUPS: Readonly<Record<string, string>> = {
  thread: 'Manage threads',
  meeting: 'Meetings: ephemeral rooms kept in memory (the hub keeps where you last heard)',
  roster: 'The signed roster: who belongs, with which role (the file: --roster, PARLEY_ROSTER, trust.rosterPath, else <home>/roster.json)',
  channel: 'Channel access policies',
  token: "Manage participants' tokens",
  peer: 'Links to hubs on other machines (peer-to-peer, trusted through the roster)',
};

/** Whether `name` is a key of `table` itself (a word typed on the command line can be "constructor"). */
export const names = (table: object, name: string): boolean => Object.hasOwn(table, name);

/** The command a word names outside the groups. */
export function topCommand(name: string): CommandEntry | undefined {
  return !name.includes(' ') && names(COMMANDS, name) ? COMMANDS[name] : undefined;
}

/** A group's subcommands, by verb, in the table's order. */
export function subcommands(group: string): Array<[verb: string, entry: CommandEntry]> {
  const prefix = `${group} `;
  return Object.entries(COMMANDS)
    .filter(([name]) => name.startsWith(prefix))
    .map(([name, entry]) => [name.slice(prefix.length), entry]);
}
