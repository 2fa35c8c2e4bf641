/**
 * Every limit and default of Parley, named once. Config keys (see schema.ts)
 * override them; code never uses a bare literal for a limit.
 */

// The limits input schemas enforce are defined with them, below config.
export { DEFAULT_RETENTION_HOURS, DEFAULT_RETENTION_MESSAGES, MAX_INBOX_LIMIT, MAX_READ_LIMIT } from '../schema/limits.js';

// Hub address (fixed contract: 127.0.0.1:7420).
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 7420;
export const DEFAULT_HOME_DIRNAME = '.parley';
export const CONFIG_FILENAME = 'config.json';
export const STORE_FILENAME = 'parley.db';
export const SEARCH_FILENAME = 'search.db';
export const LOCK_FILENAME = 'hub.lock';
export const LOCK_INFO_FILENAME = 'hub.lock.json';
export const ADMIN_TOKEN_FILENAME = 'admin.token';
export const CREDENTIALS_FILENAME = 'credentials.json';
/** Where a hub that "parley mcp" started writes its output. */
export const HUB_LOG_FILENAME = 'hub.log';
/** The peers `parley peer add` keeps (src/home/peer-book.ts). */
export const PEERS_FILENAME = 'peers.json';
/** The session a participant is in when none is named. */
export const DEFAULT_SESSION_NAME = 'default';
/** How long `parley stop` waits for the hub to finish what is pending and close its store (--timeout overrides). */
export const DEFAULT_STOP_TIMEOUT_MS = 30_000;
/** How long `parley status` and `parley stop` wait for the hub to answer about itself. */
export const DEFAULT_HUB_QUERY_TIMEOUT_MS = 3_000;
/** Password guessing, per account and per client: wrong passwords allowed before any wait. */
export const DEFAULT_SIGN_IN_MAX_FAILURES = 10;
/** The wait after the last allowed wrong password; each further one doubles it... */
export const DEFAULT_SIGN_IN_BACKOFF_MS = 1000;
/** ...up to this. */
export const DEFAULT_SIGN_IN_MAX_BACKOFF_MS = 15 * 60_000;
/** Wrong passwords are forgotten after this long without another. */
export const DEFAULT_SIGN_IN_FORGET_MS = 24 * 3_600_000;
/** Accounts and clients whose wrong passwords are remembered at once (bounds memory). */
export const DEFAULT_SIGN_IN_MAX_TRACKED = 10_000;
/** The largest request body the hub reads; posts are far smaller (see maxInputChars). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** Live streams (SSE) send a comment this often so idle connections stay open through proxies. */
export const DEFAULT_SSE_KEEPALIVE_MS = 15_000;
/** A live-stream client that takes nothing of what waits for it for this long is dropped (it resumes by seq). */
export const DEFAULT_SSE_STALL_TIMEOUT_MS = 30_000;

// Chat posting rules.
export const DEFAULT_CHAT_ENABLED = true;
export const DEFAULT_MAX_MESSAGE_CHARS = 4096;
/** Input longer than this is refused outright rather than truncated (protects memory). */
export const DEFAULT_MAX_INPUT_CHARS = 1_000_000;
/**
 * Every write a participant makes (see rate-limit.ts) draws on a token bucket:
 * up to WRITE_BURST at once, refilled at WRITES_PER_MINUTE. An agent's normal
 * pace — a burst of several posts a second, a few dozen a minute — never comes
 * near it; a runaway loop is held to 60 + 10 a second, so 30,000 messages in
 * 11 s become about 170. writesPerMinute 0 turns the limit off.
 */
export const DEFAULT_WRITE_BURST = 60;
export const DEFAULT_WRITES_PER_MINUTE = 600;
export const DEFAULT_SCANNER_ENABLED = true;
export const DEFAULT_SCANNER_TIMEOUT_MS = 800;
export const TRUNCATION_MARKER = ' … [truncated]';
export const REDACTION_PLACEHOLDER = '[redacted]';
export const REDACTION_NOTE = ' (Note: content redacted by scanner)';

// Requests.
export const DEFAULT_MAX_HOP = 3;
export const DEFAULT_MAX_PARAMS_BYTES = 64 * 1024;
/** Levels of nesting a request's params or a response's result may have (each string is scanned for secrets). */
export const DEFAULT_MAX_JSON_DEPTH = 32;

// Inbox and wait.
export const DEFAULT_WAIT_TIMEOUT_MS = 25_000;
export const DEFAULT_MAX_WAIT_TIMEOUT_MS = 120_000;
export const DEFAULT_INBOX_LIMIT = 50;
/** How many of one's latest sent deliveries the MCP `inbox` tool shows with their states (the tool's `sent` argument overrides it). */
export const DEFAULT_INBOX_SENT_SHOWN = 10;
export const MAX_INBOX_SENT_SHOWN = 100;
export const DEFAULT_READ_LIMIT = 200;
/** One read (a history page, new messages, an inbox) returns at most about this many bytes of events, then says there is more. */
export const DEFAULT_MAX_READ_BYTES = 128 * 1024;
/** Heavy reads (history, search, inbox, export) one participant runs at once; more wait their turn, so one reader cannot crowd the hub. */
export const DEFAULT_READS_PER_PARTICIPANT = 2;
/** Events `parley history` shows when no --limit is given (the most recent ones). */
export const DEFAULT_CLI_HISTORY_LIMIT = 20;
/** Events `parley tail THREAD` prints from the thread's history before following it live (--last). */
export const DEFAULT_TAIL_LAST = 10;
/** Live subscribers that fall this many events behind are cut off (they resume by seq). */
export const DEFAULT_LIVE_QUEUE_LIMIT = 10_000;

// Presence.
/** A meeting place taken with one-shot calls (no live connection) is freed this long after the holder's last call. */
export const DEFAULT_PRESENCE_TTL_SECONDS = 300;

// Meetings.
export const DEFAULT_MEETING_MAX_PARTICIPANTS = 32;
export const DEFAULT_MEETING_RING_SIZE = 100;
export const DEFAULT_MEETING_MAX_MESSAGE_CHARS = 1024;

// Participation policy: threads with more members than this are conservative.
export const DEFAULT_PERMISSIVE_MAX_MEMBERS = 3;

// Agents.
/** What wakes an agent that has not chosen (its profile's wakeOn): every inbox item but muted threads (the default wake rule). */
export const DEFAULT_AGENT_WAKE_ON = 'all' as const;

// Agent hooks (`parley hook`: messages between tool calls and at stop).
/** Handles whose stop hook waits for a message before letting the agent stop ("*": every agent); none by default. */
export const DEFAULT_AGENTS_STAY_AVAILABLE: readonly string[] = [];
/** How long a stop hook of an available agent waits for a message before it lets the agent stop. */
export const DEFAULT_AGENTS_STAY_AVAILABLE_SECONDS = 300;
/** Stops blocked in a row (none let through in between) before the hub lets the next one through. */
export const DEFAULT_AGENTS_MAX_STOP_CONTINUATIONS = 5;
/** The longest stop wait a config may ask for. */
export const MAX_AGENTS_STAY_AVAILABLE_SECONDS = 3600;
/** Context a hook adds at most: Claude Code's cap on additionalContext and on a hook's output. */
export const HOOK_CONTEXT_MAX_CHARS = 10_000;
/** Items one hook answer carries at most; more are said to wait. */
export const HOOK_MAX_ITEMS = 20;
/** The middleware's cap: new items one LLM call is given at most (its maxNewMessages option overrides it). */
export const DEFAULT_MAX_NEW_MESSAGES = 100;
/** How long the LLM middleware waits for the hub (to link, to fetch new chat, to take it) before a model call goes on without chat (its hubTimeoutMs option overrides it). */
export const DEFAULT_MIDDLEWARE_HUB_TIMEOUT_MS = 5_000;
/**
 * How many chat blocks the LLM middleware keeps to give again in the later
 * calls of the conversation they were given in (the next steps of a tool
 * loop, a conversation continued); the oldest is let go first.
 */
export const MIDDLEWARE_GIVEN_CHAT_MEMORY = 64;
/** Client sessions whose consecutive stop blocks the hub remembers; the oldest are forgotten first. */
export const HOOK_TRACKED_CLIENT_SESSIONS = 10_000;
/** The hook's request to the hub for events that do not wait (a tool run, a prompt): a hook must not hold its agent up. */
export const HOOK_REQUEST_TIMEOUT_MS = 5_000;
/** What a stop hook's request allows beyond the longest stop wait a hub may have (its own setting is the hub's, unknown to the hook). */
export const HOOK_STOP_TIMEOUT_MARGIN_MS = 10_000;
/** How often a hook checks that the client that ran it is still there (a killed client leaves its hook behind, still waiting at a stop). */
export const HOOK_CLIENT_CHECK_MS = 500;
/** The event JSON a hook reads from its client at most (more is read and dropped). */
export const HOOK_MAX_STDIN_BYTES = 1024 * 1024;
/** How long a hook reads its event JSON at most: a client that keeps stdin open must not hold the hook (it goes on with what came). */
export const HOOK_STDIN_TIMEOUT_MS = 5_000;

// Store.
/** WAL + NORMAL: a process crash loses nothing acknowledged; only an OS crash or power loss can drop the last commits. */
export const DEFAULT_STORE_SYNCHRONOUS = 'normal' as const;
export const DEFAULT_DEFAULT_CHANNEL = 'general';

// Web UI.
export const DEFAULT_WEBUI_PASSWORD = '';

// MCP (how agents reach the hub).
/** Rooms loaded for a new connection besides the global room ("all" loads every available room). */
export const DEFAULT_MCP_ROOMS: readonly string[] = ['chat'];
/** Participant kinds or roles excluded from chat on every surface (an architect, say): no chat tools or instructions, chat calls refused. */
export const DEFAULT_MCP_EXCLUDED_KINDS: readonly string[] = [];
export const DEFAULT_MCP_COMPAT = false;
/** The meeting the compat room's meeting tools (katra_say, …) speak in. */
export const DEFAULT_MCP_COMPAT_MEETING = 'meeting';
/** The MCP `wait` tool's cap: below the usual client request timeout (60 s in the official SDK). */
export const DEFAULT_MCP_WAIT_TIMEOUT_MS = 25_000;
/** An HTTP MCP session idle this long is closed (its client starts a new one). */
export const DEFAULT_MCP_SESSION_IDLE_MS = 30 * 60_000;
/** At most this many HTTP MCP sessions at once; the least recently used is closed first. */
export const DEFAULT_MCP_MAX_SESSIONS = 256;
/** One participant's sessions at most (a few agent CLIs and reconnects); over it, its own oldest closes. */
export const DEFAULT_MCP_MAX_SESSIONS_PER_PARTICIPANT = 32;
/** Sessions opened with one token at most; over it, that token's oldest closes. */
export const DEFAULT_MCP_MAX_SESSIONS_PER_TOKEN = 16;
/** Messages in one JSON-RPC batch at most (clients send one at a time; MCP 2025-06-18 dropped batches). */
export const DEFAULT_MCP_MAX_BATCH_SIZE = 8;

// The coordinator (automation as a visible participant, `parley coordinate`).
/** Whether `parley serve` runs the coordinator inside the hub (`parley coordinate` runs it alone). */
export const DEFAULT_COORDINATOR_ENABLED = false;
/** The coordinator's own participant: it signs every start, finish, timeout and refusal with this handle. */
export const DEFAULT_COORDINATOR_HANDLE = 'coordinator';
/** The channel where the coordinator shows what it does (a channel of its own, so its notices wake no agent). */
export const DEFAULT_COORDINATOR_CHANNEL = 'coordinator';
/** The sessions the coordinator answers in. */
export const DEFAULT_COORDINATOR_SESSIONS: readonly string[] = ['default'];
/** An adapter run is killed (its whole process group) after this long, unless its agent sets its own. */
export const DEFAULT_COORDINATOR_TIMEOUT_SECONDS = 300;
/**
 * The loop guard: a human's message is depth 0, an answer the coordinator
 * posts for a trigger at depth d is depth d+1, and a trigger at this depth or
 * deeper is refused. 2 lets a human ask, an agent answer and another agent
 * answer that, then stops the exchange.
 */
export const DEFAULT_COORDINATOR_MAX_DEPTH = 2;
/**
 * The cost guard: the coordinator starts at most this many runs of one agent
 * an hour, and at most this many for one author's messages (each run is a
 * model call a real adapter pays for); a trigger past either is refused, and
 * its author told so in the thread.
 */
export const DEFAULT_COORDINATOR_MAX_RUNS_PER_HOUR = 12;
/** A loop-guard refusal is told to its author in one thread at most once in this long (an agent told would otherwise be kept talking). */
export const COORDINATOR_LOOP_NOTICE_QUIET_MS = 3_600_000;
/** An adapter's output beyond this many characters is cut (and said to be) before it is posted. */
export const DEFAULT_COORDINATOR_MAX_OUTPUT_CHARS = 16_000;
/** How often `parley coordinate` (outside the hub) looks for new messages; inside `parley serve` it is woken by each event. */
export const DEFAULT_COORDINATOR_POLL_MS = 500;
/** After its timeout, an adapter is asked to stop (SIGTERM) and killed (SIGKILL) this long later if it has not. */
export const COORDINATOR_KILL_GRACE_MS = 2_000;
/** One coordinator per home (inside `parley serve` or `parley coordinate`): the lock it holds, and who holds it. */
export const COORDINATOR_LOCK_FILENAME = 'coordinator.lock';
export const COORDINATOR_LOCK_INFO_FILENAME = 'coordinator.lock.json';
/** The coordinator reads at most this many inbox items of one agent per turn; the rest wait for the next turn. */
export const COORDINATOR_INBOX_LIMIT = 100;
/** The tag that carries an answer's depth for the loop guard, followed by the number (e.g. "parley:depth=1"). */
export const COORDINATOR_DEPTH_TAG_PREFIX = 'parley:depth=';
/** The events of the answered thread an adapter is shown at most (the newest; every trigger is always shown). */
export const COORDINATOR_CONTEXT_EVENTS = 50;
// Agent CLI installs ("parley install"; config keys install.*).
/** The client's timeout for Parley's quick hooks (tool runs, prompts, session start and end): they make one small request, so a hub that hangs never holds the agent long. */
export const INSTALL_HOOK_TIMEOUT_SECONDS = 10;
/** How much longer than the hub's stop wait the client lets the stop hook run, so the hook ends its wait itself. */
export const INSTALL_STOP_TIMEOUT_MARGIN_SECONDS = 30;
/** Codex's start-up timeout for Parley's MCP server: `parley mcp` may first start a hub and wait for it (up to 20 s). */
export const INSTALL_MCP_STARTUP_TIMEOUT_SECONDS = 30;
/** Where the install ledger is kept in the home, and the originals of the files install changed. */
export const INSTALL_LEDGER_FILENAME = 'installs.json';
export const INSTALL_BACKUP_DIRNAME = 'install-backups';
// The agent loop (`parley/agent`; options of runAgent, not hub config).
/** The model calls (steps) one turn of the loop makes at most before it goes back to its inbox. */
export const AGENT_MAX_STEPS_PER_TURN = 20;
/** How long one wait on the hub lasts before the loop looks at its budget and waits again (below the hub's maximum wait). */
export const AGENT_WAIT_MS = 25_000;
/** A turn whose model call fails this many times in a row stops the loop (reason "error"): a provider that keeps failing is not retried forever. */
export const AGENT_MAX_CONSECUTIVE_FAILURES = 3;
/** The tokens all of a loop's relevance checks may spend together; past it every item counts as relevant. */
export const AGENT_RELEVANCE_BUDGET_TOKENS = 20_000;
/** The longest answer a relevance check may give (a list of item numbers). */
export const AGENT_RELEVANCE_MAX_OUTPUT_TOKENS = 256;
/** The model calls one subagent makes at most for its task. */
export const AGENT_SUBAGENT_MAX_STEPS = 20;
/** How much of a subagent's result its inbox item's summary keeps. */
export const AGENT_SUBAGENT_SUMMARY_CHARS = 200;
/** The history the loop keeps before a turn, in messages at most: older whole turns are dropped first, so a long-running loop never outgrows the model's context. */
export const AGENT_MAX_HISTORY_MESSAGES = 200;
/** The first pause before the loop links to a hub that went away (stopped, restarted, its token refused); each failed try doubles it. */
export const AGENT_HUB_RETRY_FIRST_MS = 500;
/** The longest pause between two tries to link to a hub that went away. */
export const AGENT_HUB_RETRY_MAX_MS = 10_000;
// Trust: keys, signatures, the roster and permission roles (config keys trust.*).
/** Without a roster (local mode), the permission role (`access`) each kind of participant gets unless trust.access or "parley roster set-role" says otherwise. */
export const DEFAULT_TRUST_LOCAL_ACCESS_HUMAN = 'admin';
export const DEFAULT_TRUST_LOCAL_ACCESS_AGENT = 'operator';
/** No roster file unless one is configured (trust.rosterPath, PARLEY_ROSTER or --roster): the hub runs in local mode. */
export const DEFAULT_TRUST_ROSTER_PATH = '';
/** How long an envelope stays valid after its timestamp (its ttl_secs). */
export const DEFAULT_TRUST_TTL_SECS = 300;
/** The longest TTL an envelope from outside may ask for (its id is remembered against replay that long). */
export const DEFAULT_TRUST_MAX_TTL_SECS = 3600;
/** How far an envelope's clock may be from ours, either way, before it counts as expired or from the future. */
export const DEFAULT_TRUST_CLOCK_SKEW_SECS = 30;
/** Envelope ids remembered against replay at most; past it new envelopes are refused rather than old ids forgotten early. */
export const DEFAULT_TRUST_REPLAY_MAX_IDS = 100_000;
/** The largest signed envelope or document accepted for decoding, in bytes. */
export const DEFAULT_TRUST_MAX_ENVELOPE_BYTES = 256 * 1024;
/** Events sent to the signing worker in one message at most (more are sent in the next). */
export const DEFAULT_SIGNING_BATCH_MAX = 512;
/** How long an event waits to be sent to the signing worker with others (its post does not wait for it). */
export const DEFAULT_SIGNING_SEND_DELAY_MS = 2;
/** How long signatures wait to be written with the next batch of events before they are written on their own. */
export const DEFAULT_SIGNING_WRITE_DELAY_MS = 20;
/** Events waiting for the signing worker at most; past it events are signed as they are appended (the worker fell behind). */
export const DEFAULT_SIGNING_MAX_IN_FLIGHT = 8192;
// Retention (config keys retention.*; a channel's access policy may set its own hours and messages).
/** How long an archive member keeps history (the roster marks it archive). */
export const DEFAULT_RETENTION_ARCHIVE_HOURS = 720;
/** How often the pruner looks for events past retention. */
export const DEFAULT_RETENTION_INTERVAL_MS = 60_000;
/** How long one pruning step may hold the writer, so posts are never held up behind retention. */
export const DEFAULT_RETENTION_CHUNK_BUDGET_MS = 4;
// The post path: the WAL checkpointer (src/store/checkpointer.ts).
/** How often at most the checkpointer looks at the WAL's size while commits come. */
export const DEFAULT_CHECKPOINT_INTERVAL_MS = 20;
/**
 * WAL pages (4 KiB) past which it is checkpointed. Each time a checkpoint
 * catches up, the WAL starts over and the writer's next commit syncs its
 * header: a large WAL starts over rarely.
 */
export const DEFAULT_CHECKPOINT_THRESHOLD_PAGES = 4096;
/**
 * The WAL file size (bytes) past which the writer checkpoints itself after its
 * commit, should the checkpointer fall behind. That copy runs on the posting
 * path, so only a burst the worker cannot follow should reach it: a prune of
 * 100,000 events writes more than 64 MiB in about a second.
 */
export const DEFAULT_CHECKPOINT_WRITER_FALLBACK_BYTES = 256 * 1024 * 1024;
/** The size (bytes) the WAL file is cut back to when it starts over from its beginning. */
export const DEFAULT_WAL_SIZE_LIMIT_BYTES = 16 * 1024 * 1024;

// The local socket (`parley mcp` to the hub on the same home; src/local-socket, src/client/socket-*).
/** The hub's Unix socket in its home: local clients' calls without HTTP (see src/local-socket). */
export const LOCAL_SOCKET_FILENAME = 'hub.sock';
/** How long a client waits for the socket's hello before it uses REST instead. */
export const LOCAL_SOCKET_HELLO_TIMEOUT_MS = 2_000;
/** The first pause before a client opens the socket again after the hub went away; each failed try doubles it. */
export const LOCAL_SOCKET_RETRY_FIRST_MS = 500;
/** The longest pause between two tries to open the socket again. */
export const LOCAL_SOCKET_RETRY_MAX_MS = 10_000;
/** How long calls in flight on the local socket may take to finish when the hub stops (as the HTTP server's grace). */
export const LOCAL_SOCKET_CLOSE_GRACE_MS = 5_000;

/** Peer links (src/peer): no listener unless asked for (`parley serve --peer-port`, peers.listen). */
export const DEFAULT_PEERS_LISTEN: readonly string[] = [];
export const DEFAULT_PEERS_MDNS = false;
/** The hub's name shown to its peers and beside remote handles; empty: the machine's host name. */
export const DEFAULT_PEERS_NAME = '';
/** `parley serve --peer-host` when only --peer-port is given: every interface. */
export const DEFAULT_PEER_HOST = '0.0.0.0';
/** History sync (peers.sync.*): each page a peer serves holds at most this many events and about this many bytes. */
export const DEFAULT_PEERS_SYNC_MAX_MESSAGES = 100;
export const DEFAULT_PEERS_SYNC_MAX_BYTES = 1024 * 1024;
/** How often a hub compares what it holds with its peers' (anti-entropy), in seconds. */
export const DEFAULT_PEERS_SYNC_INTERVAL_SECONDS = 30;
/** How many linked peers a hub compares with at each interval (archives and the most recently heard first). */
export const DEFAULT_PEERS_SYNC_PEERS = 3;
