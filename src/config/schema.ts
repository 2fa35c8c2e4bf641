import { z } from 'zod';
import * as D from './defaults.js';
import { WakeOnSchema } from '../schema/participant.js';
import { AccessSchema } from '../schema/access.js';
import { ChannelNameSchema, HandleSchema, SessionNameSchema } from '../schema/names.js';

/**
 * The hub's configuration, as one zod schema: the single source of its type,
 * its defaults and its validation. Objects are strict so that a misspelt key
 * fails at start with its name instead of being silently ignored.
 */
const port = z.number().int().min(0).max(65535);

export const ServerConfigSchema = z.strictObject({
  host: z.string().min(1).default(D.DEFAULT_HOST),
  port: port.default(D.DEFAULT_PORT),
  maxBodyBytes: z.number().int().min(1024).max(256 * 1024 * 1024).default(D.DEFAULT_MAX_BODY_BYTES),
  sseKeepAliveMs: z.number().int().min(10).max(3_600_000).default(D.DEFAULT_SSE_KEEPALIVE_MS),
  sseStallTimeoutMs: z.number().int().min(10).max(3_600_000).default(D.DEFAULT_SSE_STALL_TIMEOUT_MS),
});

export const SignInConfigSchema = z
  .strictObject({
    maxFailures: z.number().int().min(1).max(1000).default(D.DEFAULT_SIGN_IN_MAX_FAILURES),
    backoffMs: z.number().int().min(1).max(3_600_000).default(D.DEFAULT_SIGN_IN_BACKOFF_MS),
    maxBackoffMs: z.number().int().min(1).max(24 * 3_600_000).default(D.DEFAULT_SIGN_IN_MAX_BACKOFF_MS),
    forgetMs: z.number().int().min(1).max(30 * 24 * 3_600_000).default(D.DEFAULT_SIGN_IN_FORGET_MS),
    maxTracked: z.number().int().min(16).max(10_000_000).default(D.DEFAULT_SIGN_IN_MAX_TRACKED),
  })
  .refine((s) => s.backoffMs <= s.maxBackoffMs, { path: ['backoffMs'], message: 'must not exceed webui.signIn.maxBackoffMs' })
  .refine((s) => s.maxBackoffMs <= s.forgetMs, { path: ['maxBackoffMs'], message: 'must not exceed webui.signIn.forgetMs' });

export const WebUiConfigSchema = z.strictObject({
  password: z.string().default(D.DEFAULT_WEBUI_PASSWORD),
  /** Password guessing limits (see SignInThrottle). */
  signIn: SignInConfigSchema.prefault({}),
});

export const ChatConfigSchema = z.strictObject({
  enabled: z.boolean().default(D.DEFAULT_CHAT_ENABLED),
  limits: z
    .strictObject({
      maxMessageChars: z.number().int().min(32).max(1_000_000).default(D.DEFAULT_MAX_MESSAGE_CHARS),
      maxInputChars: z.number().int().min(32).max(64_000_000).default(D.DEFAULT_MAX_INPUT_CHARS),
      maxReadBytes: z.number().int().min(4096).max(256 * 1024 * 1024).default(D.DEFAULT_MAX_READ_BYTES),
      concurrentReads: z.number().int().min(1).max(1024).default(D.DEFAULT_READS_PER_PARTICIPANT),
      writeBurst: z.number().int().min(1).max(1_000_000).default(D.DEFAULT_WRITE_BURST),
      writesPerMinute: z.number().int().min(0).max(60_000_000).default(D.DEFAULT_WRITES_PER_MINUTE),
    })
    .prefault({}),
  scanner: z
    .strictObject({
      enabled: z.boolean().default(D.DEFAULT_SCANNER_ENABLED),
      timeoutMs: z.number().int().min(1).max(60_000).default(D.DEFAULT_SCANNER_TIMEOUT_MS),
    })
    .prefault({}),
  defaultChannel: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be a channel name like "general"')
    .default(D.DEFAULT_DEFAULT_CHANNEL),
});

export const RequestsConfigSchema = z.strictObject({
  maxHop: z.number().int().min(0).max(32).default(D.DEFAULT_MAX_HOP),
  maxParamsBytes: z.number().int().min(2).max(16 * 1024 * 1024).default(D.DEFAULT_MAX_PARAMS_BYTES),
  maxJsonDepth: z.number().int().min(1).max(1000).default(D.DEFAULT_MAX_JSON_DEPTH),
});

export const InboxConfigSchema = z.strictObject({
  waitTimeoutMs: z.number().int().min(0).default(D.DEFAULT_WAIT_TIMEOUT_MS),
  maxWaitTimeoutMs: z.number().int().min(1).max(3_600_000).default(D.DEFAULT_MAX_WAIT_TIMEOUT_MS),
  liveQueueLimit: z.number().int().min(16).max(10_000_000).default(D.DEFAULT_LIVE_QUEUE_LIMIT),
});

export const PresenceConfigSchema = z.strictObject({
  ttlSeconds: z.number().int().min(1).max(86_400).default(D.DEFAULT_PRESENCE_TTL_SECONDS),
});

export const MeetingConfigSchema = z.strictObject({
  maxParticipants: z.number().int().min(1).max(10_000).default(D.DEFAULT_MEETING_MAX_PARTICIPANTS),
  ringSize: z.number().int().min(1).max(1_000_000).default(D.DEFAULT_MEETING_RING_SIZE),
  maxMessageChars: z.number().int().min(1).max(1_000_000).default(D.DEFAULT_MEETING_MAX_MESSAGE_CHARS),
});

export const ParticipationConfigSchema = z.strictObject({
  permissiveMaxMembers: z.number().int().min(0).max(10_000).default(D.DEFAULT_PERMISSIVE_MAX_MEMBERS),
});

export const AgentsConfigSchema = z.strictObject({
  wakeOn: WakeOnSchema.default(D.DEFAULT_AGENT_WAKE_ON),
  // Agent hooks (parley hook).
  stayAvailable: z
    .array(z.union([z.literal('*'), HandleSchema], { error: 'must be a participant handle, or "*" for every agent' }))
    .max(1000)
    .default([...D.DEFAULT_AGENTS_STAY_AVAILABLE]),
  stayAvailableSeconds: z.number().int().min(0).max(D.MAX_AGENTS_STAY_AVAILABLE_SECONDS).default(D.DEFAULT_AGENTS_STAY_AVAILABLE_SECONDS),
  maxStopContinuations: z.number().int().min(0).max(1000).default(D.DEFAULT_AGENTS_MAX_STOP_CONTINUATIONS),
});

export const StoreCheckpointConfigSchema = z.strictObject({
  /** WAL pages (4 KiB) past which the checkpointer's worker copies them into the store. */
  thresholdPages: z.number().int().min(16).max(1_048_576).default(D.DEFAULT_CHECKPOINT_THRESHOLD_PAGES),
  /** WAL bytes past which the writer checkpoints itself after its commit, should the worker fall behind. */
  fallbackBytes: z.number().int().min(1_048_576).max(4_294_967_296).default(D.DEFAULT_CHECKPOINT_WRITER_FALLBACK_BYTES),
  /** The size the WAL file is cut back to when it starts over. */
  walSizeLimitBytes: z.number().int().min(0).max(4_294_967_296).default(D.DEFAULT_WAL_SIZE_LIMIT_BYTES),
});

export const StoreConfigSchema = z.strictObject({
  synchronous: z.enum(['full', 'normal']).default(D.DEFAULT_STORE_SYNCHRONOUS),
  checkpoint: StoreCheckpointConfigSchema.prefault({}),
});

const RoomList = z.union([z.literal('all'), z.array(z.string().regex(/^[a-z][a-z0-9_-]{0,63}$/, 'must be a room id like "chat"')).max(64)]);

export const McpConfigSchema = z.strictObject({
  rooms: RoomList.default([...D.DEFAULT_MCP_ROOMS]),
  /** Per participant handle: the rooms its connections start with (overrides `rooms`). */
  participantRooms: z.record(z.string(), RoomList).default({}),
  excludedKinds: z.array(z.string().min(1).max(64)).max(64).default([...D.DEFAULT_MCP_EXCLUDED_KINDS]),
  compat: z.boolean().default(D.DEFAULT_MCP_COMPAT),
  compatMeeting: z.string().trim().min(1).max(64).default(D.DEFAULT_MCP_COMPAT_MEETING),
  waitTimeoutMs: z.number().int().min(0).max(3_600_000).default(D.DEFAULT_MCP_WAIT_TIMEOUT_MS),
  sessionIdleMs: z.number().int().min(1000).max(7 * 24 * 3_600_000).default(D.DEFAULT_MCP_SESSION_IDLE_MS),
  maxSessions: z.number().int().min(1).max(100_000).default(D.DEFAULT_MCP_MAX_SESSIONS),
  maxSessionsPerParticipant: z.number().int().min(1).max(100_000).default(D.DEFAULT_MCP_MAX_SESSIONS_PER_PARTICIPANT),
  maxSessionsPerToken: z.number().int().min(1).max(100_000).default(D.DEFAULT_MCP_MAX_SESSIONS_PER_TOKEN),
  maxBatchSize: z.number().int().min(1).max(1000).default(D.DEFAULT_MCP_MAX_BATCH_SIZE),
});

/**
 * How the coordinator runs one participant's adapter: an argv (no shell, so
 * nothing in it is interpreted), an optional working directory, timeout and
 * extra environment.
 */
export const CoordinatorAgentConfigSchema = z.strictObject({
  command: z
    .array(z.string().min(1, 'must not be an empty word'))
    .min(1, 'must name the program to run and its arguments, e.g. ["claude", "-p"]'),
  cwd: z.string().min(1).optional(),
  timeoutSeconds: z.number().int().min(1).max(86_400).optional(),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'), z.string()).default({}),
});
export type CoordinatorAgentConfig = z.output<typeof CoordinatorAgentConfigSchema>;

export const CoordinatorConfigSchema = z
  .strictObject({
    enabled: z.boolean().default(D.DEFAULT_COORDINATOR_ENABLED),
    // The same names as everywhere else in Parley (an "@" before a handle, a "#" before a channel, are taken off).
    handle: HandleSchema.default(D.DEFAULT_COORDINATOR_HANDLE),
    channel: ChannelNameSchema.default(D.DEFAULT_COORDINATOR_CHANNEL),
    sessions: z.array(SessionNameSchema).max(64).default([...D.DEFAULT_COORDINATOR_SESSIONS]),
    timeoutSeconds: z.number().int().min(1).max(86_400).default(D.DEFAULT_COORDINATOR_TIMEOUT_SECONDS),
    maxDepth: z.number().int().min(1).max(32).default(D.DEFAULT_COORDINATOR_MAX_DEPTH),
    maxRunsPerHour: z.number().int().min(1).max(10_000).default(D.DEFAULT_COORDINATOR_MAX_RUNS_PER_HOUR),
    maxOutputChars: z.number().int().min(32).max(1_000_000).default(D.DEFAULT_COORDINATOR_MAX_OUTPUT_CHARS),
    pollMs: z.number().int().min(10).max(60_000).default(D.DEFAULT_COORDINATOR_POLL_MS),
    /** By participant handle: the adapter that answers for it. Only these participants are ever run. */
    agents: z.record(HandleSchema, CoordinatorAgentConfigSchema).default({}),
  })
  .superRefine((coordinator, ctx) => {
    const own = coordinator.handle.toLowerCase();
    for (const handle of Object.keys(coordinator.agents)) {
      if (handle.toLowerCase() === own) {
        ctx.addIssue({ code: 'custom', path: ['agents', handle], message: `is the coordinator's own handle; give the coordinator another handle (coordinator.handle) or remove this adapter` });
      }
    }
  });
/** What "parley install" writes into agent CLIs' configs (client-side timeouts). */
export const InstallConfigSchema = z.strictObject({
  hookTimeoutSeconds: z.number().int().min(1).max(3600).default(D.INSTALL_HOOK_TIMEOUT_SECONDS),
  stopTimeoutMarginSeconds: z.number().int().min(1).max(3600).default(D.INSTALL_STOP_TIMEOUT_MARGIN_SECONDS),
  mcpStartupTimeoutSeconds: z.number().int().min(1).max(3600).default(D.INSTALL_MCP_STARTUP_TIMEOUT_SECONDS),
});

/** Keys, signatures, the roster and permission roles (see src/trust). */
export const TrustConfigSchema = z.strictObject({
  /** The signed roster file (relative: to the home); empty for <home>/roster.json if it exists, else local mode. Also PARLEY_ROSTER and --roster, the later winning. */
  rosterPath: z.string().default(D.DEFAULT_TRUST_ROSTER_PATH),
  /** Local mode: the permission role of each participant kind. */
  localAccess: z
    .strictObject({
      human: AccessSchema.default(D.DEFAULT_TRUST_LOCAL_ACCESS_HUMAN),
      agent: AccessSchema.default(D.DEFAULT_TRUST_LOCAL_ACCESS_AGENT),
    })
    .prefault({}),
  /** Local mode: the permission role of named participants, by handle (overrides localAccess). */
  access: z.record(HandleSchema, AccessSchema).default({}),
  ttlSecs: z.number().int().min(1).max(30 * 86_400).default(D.DEFAULT_TRUST_TTL_SECS),
  /** The longest ttl_secs an envelope from outside may ask for: its id is remembered that long. */
  maxTtlSecs: z.number().int().min(1).max(30 * 86_400).default(D.DEFAULT_TRUST_MAX_TTL_SECS),
  clockSkewSecs: z.number().int().min(0).max(86_400).default(D.DEFAULT_TRUST_CLOCK_SKEW_SECS),
  replayMaxIds: z.number().int().min(16).max(10_000_000).default(D.DEFAULT_TRUST_REPLAY_MAX_IDS),
  maxEnvelopeBytes: z.number().int().min(1024).max(64 * 1024 * 1024).default(D.DEFAULT_TRUST_MAX_ENVELOPE_BYTES),
});

/** How long channels keep their events (a channel's access policy may set its own hours and messages). */
export const RetentionConfigSchema = z.strictObject({
  hours: z.number().min(0.001).max(24 * 365 * 100).default(D.DEFAULT_RETENTION_HOURS),
  messages: z.number().int().min(1).max(1_000_000_000).default(D.DEFAULT_RETENTION_MESSAGES),
  archiveHours: z.number().min(0.001).max(24 * 365 * 100).default(D.DEFAULT_RETENTION_ARCHIVE_HOURS),
  intervalMs: z.number().int().min(10).max(86_400_000).default(D.DEFAULT_RETENTION_INTERVAL_MS),
  chunkBudgetMs: z.number().min(0.1).max(1000).default(D.DEFAULT_RETENTION_CHUNK_BUDGET_MS),
});

/** A listen address as a multiaddr over TCP: `/ip4/0.0.0.0/tcp/7475`, `/ip6/::/tcp/0`, `/dns4/host/tcp/N`. */
export const PeerListenAddressSchema = z
  .string()
  .regex(/^\/(ip4|ip6|dns|dns4|dns6)\/[^/\s]+\/tcp\/\d{1,5}$/, 'must be a TCP multiaddr such as /ip4/0.0.0.0/tcp/7475 (port 0 picks a free one)')
  .refine((address) => Number(address.slice(address.lastIndexOf('/') + 1)) <= 65535, 'must have a port from 0 to 65535');

/** Links to hubs on other machines (src/peer). */
export const PeersConfigSchema = z.strictObject({
  /** Where the hub listens for its peers; none by default (also `parley serve --peer-port PORT [--peer-host HOST]`). */
  listen: z.array(PeerListenAddressSchema).max(16).default([...D.DEFAULT_PEERS_LISTEN]),
  /** Find hubs on the LAN by mDNS (they are linked only if the roster lists them). */
  mdns: z.boolean().default(D.DEFAULT_PEERS_MDNS),
  /** This hub's name for its peers; empty: the machine's host name. */
  name: z
    .string()
    .max(64, 'must be at most 64 characters')
    .regex(/^([A-Za-z0-9][A-Za-z0-9_.-]*)?$/, 'must be letters, digits, "_", "." or "-", starting with a letter or digit')
    .default(D.DEFAULT_PEERS_NAME),
  /** History sync: what a hub asks its peers for, and how often it compares with them. */
  sync: z
    .strictObject({
      maxMessages: z.number().int('must be a whole number').min(1, 'must be at least 1').max(512, 'must be at most 512 (a page of the link)').default(D.DEFAULT_PEERS_SYNC_MAX_MESSAGES),
      maxBytes: z.number().int('must be a whole number').min(1024, 'must be at least 1024').max(4 * 1024 * 1024, 'must be at most 4194304 (4 MB)').default(D.DEFAULT_PEERS_SYNC_MAX_BYTES),
      intervalSeconds: z.number().min(0.05, 'must be at least 0.05').max(86_400, 'must be at most 86400 (a day)').default(D.DEFAULT_PEERS_SYNC_INTERVAL_SECONDS),
      peers: z.number().int('must be a whole number').min(1, 'must be at least 1').max(16, 'must be at most 16').default(D.DEFAULT_PEERS_SYNC_PEERS),
    })
    .prefault({}),
});

export const ConfigSchema = z
  .strictObject({
    server: ServerConfigSchema.prefault({}),
    webui: WebUiConfigSchema.prefault({}),
    chat: ChatConfigSchema.prefault({}),
    requests: RequestsConfigSchema.prefault({}),
    inbox: InboxConfigSchema.prefault({}),
    presence: PresenceConfigSchema.prefault({}),
    meeting: MeetingConfigSchema.prefault({}),
    participation: ParticipationConfigSchema.prefault({}),
    agents: AgentsConfigSchema.prefault({}),
    store: StoreConfigSchema.prefault({}),
    mcp: McpConfigSchema.prefault({}),
    coordinator: CoordinatorConfigSchema.prefault({}),
    install: InstallConfigSchema.prefault({}),
    trust: TrustConfigSchema.prefault({}),
    retention: RetentionConfigSchema.prefault({}),
    peers: PeersConfigSchema.prefault({}),
  })
  .superRefine((config, ctx) => {
    if (config.inbox.waitTimeoutMs > config.inbox.maxWaitTimeoutMs) {
      ctx.addIssue({
        code: 'custom',
        path: ['inbox', 'waitTimeoutMs'],
        message: `${config.inbox.waitTimeoutMs} must not exceed inbox.maxWaitTimeoutMs (${config.inbox.maxWaitTimeoutMs}); raise one or lower the other`,
      });
    }
  });

export type Config = z.output<typeof ConfigSchema>;
export type ConfigInput = z.input<typeof ConfigSchema>;
