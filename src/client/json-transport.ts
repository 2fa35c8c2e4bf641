/**
 * How a client reaches the hub's REST API: one JSON request under `/api/v1`
 * with a bearer token. A hub error comes back as the ParleyError the hub
 * raised; a hub that does not answer is HUB_CLOSED. A document that is not
 * JSON (an export) comes back as `{ body }`.
 */
export interface JsonTransport {
  /** The hub's base URL. */
  readonly url: string;
  request<T>(method: string, route: string, body?: unknown, signal?: AbortSignal): Promise<T>;
}
