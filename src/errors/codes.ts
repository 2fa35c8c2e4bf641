/**
 * Every error Parley reports has one of these string codes. Each code is mapped
 * once, here, to the HTTP status the REST API answers with and to the JSON-RPC
 * error code the MCP server uses when the error is a protocol-level one (tool
 * failures become tool results with `isError: true` instead).
 */
export const JSON_RPC_INVALID_PARAMS = -32602;
export const JSON_RPC_INTERNAL_ERROR = -32603;
/** Server-defined JSON-RPC range (-32000..-32099) for hub-level refusals. */
export const JSON_RPC_HUB_REFUSED = -32001;

export const ERROR_CODES = {
  INVALID_INPUT: { http: 400, jsonRpc: JSON_RPC_INVALID_PARAMS },
  PAYLOAD_TOO_LARGE: { http: 413, jsonRpc: JSON_RPC_INVALID_PARAMS },
  UNSUPPORTED_MEDIA_TYPE: { http: 415, jsonRpc: JSON_RPC_INVALID_PARAMS },
  UNAUTHORIZED: { http: 401, jsonRpc: JSON_RPC_HUB_REFUSED },
  FORBIDDEN: { http: 403, jsonRpc: JSON_RPC_HUB_REFUSED },
  NOT_FOUND: { http: 404, jsonRpc: JSON_RPC_INVALID_PARAMS },
  CONFLICT: { http: 409, jsonRpc: JSON_RPC_HUB_REFUSED },
  PARTICIPANT_MUTED: { http: 403, jsonRpc: JSON_RPC_HUB_REFUSED },
  THREAD_PAUSED: { http: 423, jsonRpc: JSON_RPC_HUB_REFUSED },
  THREAD_CLOSED: { http: 409, jsonRpc: JSON_RPC_HUB_REFUSED },
  HOP_LIMIT: { http: 422, jsonRpc: JSON_RPC_HUB_REFUSED },
  REQUEST_CLOSED: { http: 409, jsonRpc: JSON_RPC_HUB_REFUSED },
  MEETING_FULL: { http: 409, jsonRpc: JSON_RPC_HUB_REFUSED },
  CHAT_DISABLED: { http: 404, jsonRpc: JSON_RPC_HUB_REFUSED },
  RATE_LIMITED: { http: 429, jsonRpc: JSON_RPC_HUB_REFUSED },
  SLOW_CONSUMER: { http: 409, jsonRpc: JSON_RPC_HUB_REFUSED },
  HOME_LOCKED: { http: 409, jsonRpc: JSON_RPC_INTERNAL_ERROR },
  CONFIG_INVALID: { http: 500, jsonRpc: JSON_RPC_INTERNAL_ERROR },
  STORE_VERSION: { http: 500, jsonRpc: JSON_RPC_INTERNAL_ERROR },
  HUB_CLOSED: { http: 503, jsonRpc: JSON_RPC_INTERNAL_ERROR },
  /** The disk under the home is full, read-only or not the hub user's: the machine's problem, not a bug. */
  STORAGE_UNAVAILABLE: { http: 503, jsonRpc: JSON_RPC_INTERNAL_ERROR },
  INTERNAL: { http: 500, jsonRpc: JSON_RPC_INTERNAL_ERROR },
} as const satisfies Record<string, { http: number; jsonRpc: number }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function httpStatusOf(code: ErrorCode): number {
  return ERROR_CODES[code].http;
}

export function jsonRpcCodeOf(code: ErrorCode): number {
  return ERROR_CODES[code].jsonRpc;
}
