/**
 * Parley's library API: the hub core as a typed TypeScript library. The HTTP
 * server, the CLI and the MCP server are built on exactly this.
 */
export { openHub, Hub, DEFAULT_SESSION, type HubOptions, type RosterPushOptions, type SessionInfo } from './hub/index.js';
export { Actor } from './hub/index.js';
export type { PostResult } from './hub/index.js';
export type { InboxItem, InboxResult, WaitResult, AckResult } from './hub/index.js';
export type { ReadNewResult, HistoryResult } from './hub/index.js';
export type { RequestResult, ResponseResult, OpenRequest } from './hub/index.js';
export type { ControlResult } from './hub/index.js';
export type { ThreadInfo } from './hub/index.js';
export type { SideOpened, SideClosed } from './hub/index.js';
export type { PresenceInfo } from './hub/index.js';
export type { LiveItem } from './hub/index.js';
export type { LiveSubscription } from './hub/index.js';
export type { HearView, MeetingStatusView, MeetingView, HeardMessage } from './hub/index.js';
export type { Priority, InboxReason, ThreadPolicy } from './hub/index.js';

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
