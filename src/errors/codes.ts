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
  /** The caller's permission role (`access`) is below what the operation needs. */
  FORBIDDEN_ROLE: { http: 403, jsonRpc: JSON_RPC_HUB_REFUSED },
  /** A roster is in force and the caller's key is not a member of it. */
  NOT_IN_ROSTER: { http: 403, jsonRpc: JSON_RPC_HUB_REFUSED },
  /** A roster is in force and a request's or direct message's addressee is not a member of it: they could not read it. */
  ADDRESSEE_NOT_IN_ROSTER: { http: 422, jsonRpc: JSON_RPC_HUB_REFUSED },
  /** A signature does not verify against the key it names (a signed field was changed, or the wrong key). */
  BAD_SIGNATURE: { http: 422, jsonRpc: JSON_RPC_HUB_REFUSED },
  /** A roster or policy document is malformed, unsigned, or signed by someone without the right to. */
  ROSTER_INVALID: { http: 422, jsonRpc: JSON_RPC_HUB_REFUSED },
  /** A roster whose version is not newer than the one in force (rollback protection). */
  ROSTER_ROLLBACK: { http: 409, jsonRpc: JSON_RPC_HUB_REFUSED },
  /** A roster version that drops members holding live sessions, sent without confirming it. */
  ROSTER_UNCONFIRMED: { http: 409, jsonRpc: JSON_RPC_HUB_REFUSED },
  /** An envelope past `ts + ttl_secs`, dated in the future beyond the clock skew, or already seen. */
  ENVELOPE_REJECTED: { http: 422, jsonRpc: JSON_RPC_HUB_REFUSED },
  /** A key file that is missing, unreadable, or readable by others than its owner. */
  KEY_FILE: { http: 500, jsonRpc: JSON_RPC_INTERNAL_ERROR },
  INTERNAL: { http: 500, jsonRpc: JSON_RPC_INTERNAL_ERROR },
} as const satisfies Record<string, { http: number; jsonRpc: number }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function httpStatusOf(code: ErrorCode): number {
  return ERROR_CODES[code].http;
}

export function jsonRpcCodeOf(code: ErrorCode): number {
  return ERROR_CODES[code].jsonRpc;
}
