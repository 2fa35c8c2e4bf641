// Bearer tokens: each names one participant in one session. The plaintext is
// shown once, to whoever asked for it; the store keeps only its SHA-256 (the
// token is 256 random bits, so a fast hash is enough). Lookups go through an
// in-memory map, so authenticating a request costs one hash and one map get.

import crypto from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { TokenKind } from '../schema/token.js';
import type { Store } from '../store/store.js';

export interface TokenOwner {
  participantId: string;
  sessionId: string;
}

export const TOKEN_PREFIX = 'pt_';
const TOKEN_BYTES = 32;

export function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}

export class TokenRegistry {
  readonly #byHash = new Map<string, TokenOwner & { kind: TokenKind }>();
  /** Per token in use by a long-lived stream, session or wait: aborted when the token is revoked. */
  readonly #revocations = new Map<string, AbortController>();

  constructor(private readonly store: Store) {
    this.reload();
  }

  reload(): void {
    this.#byHash.clear();
    for (const row of this.store.tokens.all()) {
      this.#byHash.set(row.token_hash, { participantId: row.participant_id, sessionId: row.session_id, kind: row.kind });
    }
  }

  /** Creates a token of `kind` for the caller (inside the caller's write) and returns its plaintext. */
  issue(caller: TokenOwner, now: number, kind: TokenKind = 'participant'): string {
    const token = TOKEN_PREFIX + crypto.randomBytes(TOKEN_BYTES).toString('base64url');
    const tokenHash = hashToken(token);
    this.store.tokens.insert({ token_hash: tokenHash, participant_id: caller.participantId, session_id: caller.sessionId, created_at: now, kind });
    this.#byHash.set(tokenHash, { participantId: caller.participantId, sessionId: caller.sessionId, kind });
    return token;
  }

  /** Revokes every token of the caller (inside the caller's write). */
  revoke(caller: TokenOwner): number {
    const revoked = this.store.tokens.revokeParticipantSession(caller.participantId, caller.sessionId);
    for (const [hash, owner] of this.#byHash) {
      if (owner.participantId === caller.participantId && owner.sessionId === caller.sessionId) {
        this.#byHash.delete(hash);
        this.#announceRevoked(hash);
      }
    }
    return revoked;
  }

  /** Revokes every token of one kind (inside the caller's write); returns how many. */
  revokeKind(kind: TokenKind): number {
    const revoked = this.store.tokens.revokeKind(kind);
    for (const [hash, owner] of this.#byHash) {
      if (owner.kind !== kind) continue;
      this.#byHash.delete(hash);
      this.#announceRevoked(hash);
    }
    return revoked;
  }

  /** Revokes one token (inside the caller's write), e.g. a signed-out browser's. */
  revokeOne(token: string): boolean {
    const tokenHash = hashToken(token);
    this.#byHash.delete(tokenHash);
    this.#announceRevoked(tokenHash);
    return this.store.tokens.revokeOne(tokenHash);
  }

  /**
   * A signal that aborts when the token with this hash is revoked, so that
   * whatever was opened with it (a live stream, an MCP session, a pending
   * wait) ends at once instead of outliving its credential.
   */
  revocationSignal(tokenHash: string): AbortSignal {
    let controller = this.#revocations.get(tokenHash);
    if (!controller) {
      controller = new AbortController();
      // Many streams of one token listen at once; each removes its listener when it ends.
      setMaxListeners(0, controller.signal);
      if (this.#byHash.has(tokenHash)) this.#revocations.set(tokenHash, controller);
      else controller.abort();
    }
    return controller.signal;
  }

  #announceRevoked(tokenHash: string): void {
    const controller = this.#revocations.get(tokenHash);
    if (!controller) return;
    this.#revocations.delete(tokenHash);
    controller.abort();
  }

  lookup(token: string): TokenOwner | undefined {
    if (!token.startsWith(TOKEN_PREFIX)) return undefined;
    const owner = this.#byHash.get(hashToken(token));
    return owner && { participantId: owner.participantId, sessionId: owner.sessionId };
  }
}
