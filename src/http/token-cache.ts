import type { Actor, Credential, Hub } from '../hub/index.js';

/** Tokens whose holder is remembered at once; past this the memory is emptied and refilled by use. */
export const TOKEN_CACHE_LIMIT = 4096;

export interface TokenHolder {
  actor: Actor;
  credential: Credential;
}

/**
 * Who a bearer token (or sign-in cookie) names, remembered per token so a
 * request does not hash it twice (once to find its holder, once for its
 * credential) on every call. An Actor is a handle by participant and session
 * ids that reads the hub's live records, so the remembered one is the one the
 * hub would make again. A token is remembered only while it is valid: its
 * credential's signal aborts when it is revoked (rotation, sign-out), which
 * forgets it at once, and an aborted one is never used.
 */
export class TokenCache {
  readonly #holders = new Map<string, TokenHolder>();

  constructor(
    private readonly hub: Hub,
    private readonly limit = TOKEN_CACHE_LIMIT,
  ) {}

  get size(): number {
    return this.#holders.size;
  }

  /** The token's holder, or undefined for an unknown or revoked token. */
  holder(token: string): TokenHolder | undefined {
    const known = this.#holders.get(token);
    if (known && !known.credential.revoked.aborted) return known;
    if (known) this.#holders.delete(token);
    const actor = this.hub.authenticate(token);
    if (!actor) return undefined;
    const credential = this.hub.credential(token);
    const holder = { actor, credential };
    if (credential.revoked.aborted) return holder;
    if (this.#holders.size >= this.limit) this.#holders.clear();
    this.#holders.set(token, holder);
    credential.revoked.addEventListener(
      'abort',
      () => {
        if (this.#holders.get(token) === holder) this.#holders.delete(token);
      },
      { once: true },
    );
    return holder;
  }
}
