/**
 * Parley's library API: the hub core as a typed TypeScript library. The HTTP
 * server, the CLI and the MCP server are built on exactly this.
 */
export { openHub, Hub, DEFAULT_SESSION, type HubOptions, type RosterPushOptions, type SessionInfo } from './hub/hub.js';
export { Actor } from './hub/actor.js';
export type { PostResult } from './hub/posting.js';
export type { InboxItem, InboxResult, WaitResult, AckResult } from './hub/inbox.js';
export type { ReadNewResult, HistoryResult } from './hub/reading.js';
export type { RequestResult, ResponseResult, OpenRequest } from './hub/requests.js';
export type { ControlResult } from './hub/controls.js';
export type { ThreadInfo } from './hub/threads.js';
export type { SideOpened, SideClosed } from './hub/thread-ops.js';
export type { PresenceInfo } from './hub/presence.js';
export type { LiveItem } from './hub/live-bus.js';
export type { LiveSubscription } from './hub/subscription.js';
export type { HearView, MeetingStatusView, MeetingView, HeardMessage } from './hub/meeting-ops.js';
export type { Priority, InboxReason, ThreadPolicy } from './hub/participation.js';

export { loadConfig, resolveHome, defaultConfig, configKeys } from './config/load.js';
export { ConfigSchema, type Config, type ConfigInput } from './config/schema.js';
export * as defaults from './config/defaults.js';

export { ParleyError, isParleyError, toParleyError } from './errors/parley-error.js';
export { ERROR_CODES, type ErrorCode, httpStatusOf, jsonRpcCodeOf } from './errors/codes.js';
export { HINTS, hintText, type HintKey, type Surface } from './errors/hints.js';

export * from './schema/names.js';
export * from './schema/participant.js';
export * from './schema/event.js';
export * from './schema/control.js';
export * from './schema/inputs.js';

export { createStderrLogger, createMemoryLogger, createSilentLogger, type Logger, type LogRecord } from './util/logger.js';
export { VERSION } from './version.js';
