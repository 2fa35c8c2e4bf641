import { z } from 'zod';
import * as D from './defaults.js';

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
});

export const WebUiConfigSchema = z.strictObject({
  password: z.string().default(D.DEFAULT_WEBUI_PASSWORD),
});

export const ChatConfigSchema = z.strictObject({
  enabled: z.boolean().default(D.DEFAULT_CHAT_ENABLED),
  limits: z
    .strictObject({
      maxMessageChars: z.number().int().min(32).max(1_000_000).default(D.DEFAULT_MAX_MESSAGE_CHARS),
      maxInputChars: z.number().int().min(32).max(64_000_000).default(D.DEFAULT_MAX_INPUT_CHARS),
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

export const StoreConfigSchema = z.strictObject({
  synchronous: z.enum(['full', 'normal']).default(D.DEFAULT_STORE_SYNCHRONOUS),
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
    store: StoreConfigSchema.prefault({}),
    mcp: McpConfigSchema.prefault({}),
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
