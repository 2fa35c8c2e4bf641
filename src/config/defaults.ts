/**
 * Every limit and default of Parley, named once. Config keys (see schema.ts)
 * override them; code never uses a bare literal for a limit.
 */

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
export const DEFAULT_URL = 'http://127.0.0.1:7420';
/** Password guessing: failed sign-ins allowed per client address per window, then a lockout for the window's rest. */
export const DEFAULT_SIGN_IN_MAX_FAILURES = 10;
export const DEFAULT_SIGN_IN_WINDOW_MS = 60_000;
/** The largest request body the hub reads; posts are far smaller (see maxInputChars). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

// Chat posting rules (Maestro).
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

// Requests (Meerkat).
export const DEFAULT_MAX_HOP = 3;
export const DEFAULT_MAX_PARAMS_BYTES = 64 * 1024;

// Inbox and wait.
export const DEFAULT_WAIT_TIMEOUT_MS = 25_000;
export const DEFAULT_MAX_WAIT_TIMEOUT_MS = 120_000;
export const DEFAULT_INBOX_LIMIT = 50;
export const MAX_INBOX_LIMIT = 500;
export const DEFAULT_READ_LIMIT = 200;
export const MAX_READ_LIMIT = 1000;
/** Live subscribers that fall this many events behind are cut off (they resume by seq). */
export const DEFAULT_LIVE_QUEUE_LIMIT = 10_000;

// Presence (Meerkat / Agent Bridge).
export const DEFAULT_PRESENCE_TTL_SECONDS = 300;

// Meetings (Katra).
export const DEFAULT_MEETING_MAX_PARTICIPANTS = 32;
export const DEFAULT_MEETING_RING_SIZE = 100;
export const DEFAULT_MEETING_MAX_MESSAGE_CHARS = 1024;

// Participation policy (Agent Bridge): threads with more members than this are conservative.
export const DEFAULT_PERMISSIVE_MAX_MEMBERS = 3;

// Store.
/** WAL + NORMAL: a process crash loses nothing acknowledged; only an OS crash or power loss can drop the last commits. */
export const DEFAULT_STORE_SYNCHRONOUS = 'normal' as const;
export const DEFAULT_DEFAULT_CHANNEL = 'general';

// Web UI.
export const DEFAULT_WEBUI_PASSWORD = '';

// MCP (the agents' door).
/** Rooms loaded for a new connection besides the global room ("all" loads every available room). */
export const DEFAULT_MCP_ROOMS: readonly string[] = ['chat'];
/** Participant kinds or roles excluded from chat on every surface: no chat tools or instructions, chat calls refused (Maestro's architect exclusion). */
export const DEFAULT_MCP_EXCLUDED_KINDS: readonly string[] = [];
export const DEFAULT_MCP_COMPAT = false;
/** The meeting Katra's tool names speak in. */
export const DEFAULT_MCP_COMPAT_MEETING = 'meeting';
/** The MCP `wait` tool's cap: below the usual client request timeout (60 s in the official SDK). */
export const DEFAULT_MCP_WAIT_TIMEOUT_MS = 25_000;
/** An HTTP MCP session idle this long is closed (its client starts a new one). */
export const DEFAULT_MCP_SESSION_IDLE_MS = 30 * 60_000;
/** At most this many HTTP MCP sessions at once; the least recently used is closed first. */
export const DEFAULT_MCP_MAX_SESSIONS = 256;
