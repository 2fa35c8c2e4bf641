import crypto from 'node:crypto';
import type { Store } from '../store/store.js';

/**
 * Bearer tokens: each names one participant in one session. The plaintext is
 * shown once, to whoever asked for it; the store keeps only its SHA-256 (the
 * token is 256 random bits, so a fast hash is enough). Lookups go through an
 * in-memory map, so authenticating a request costs one hash and one map get.
 */
export interface TokenSeat {
  participantId: string;
  sessionId: string;
}

export const TOKEN_PREFIX = 'pt_';
const TOKEN_BYTES = 32;

export function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}

export class TokenRegistry {
  readonly #byHash = new Map<string, TokenSeat>();

  constructor(private readonly store: Store) {
    this.reload();
  }

  reload(): void {
    this.#byHash.clear();
    for (const row of this.store.tokens.all()) {
      this.#byHash.set(row.token_hash, { participantId: row.participant_id, sessionId: row.session_id });
    }
  }

  /** Creates a token for the seat (inside the caller's write) and returns its plaintext. */
  issue(seat: TokenSeat, now: number): string {
    const token = TOKEN_PREFIX + crypto.randomBytes(TOKEN_BYTES).toString('base64url');
    const tokenHash = hashToken(token);
    this.store.tokens.insert({ token_hash: tokenHash, participant_id: seat.participantId, session_id: seat.sessionId, created_at: now });
    this.#byHash.set(tokenHash, { ...seat });
    return token;
  }

  /** Revokes every token of the seat (inside the caller's write). */
  revoke(seat: TokenSeat): number {
    const revoked = this.store.tokens.revokeSeat(seat.participantId, seat.sessionId);
    for (const [hash, owner] of this.#byHash) {
      if (owner.participantId === seat.participantId && owner.sessionId === seat.sessionId) this.#byHash.delete(hash);
    }
    return revoked;
  }

  /** Revokes one token (inside the caller's write), e.g. a signed-out browser's. */
  revokeOne(token: string): boolean {
    const tokenHash = hashToken(token);
    this.#byHash.delete(tokenHash);
    return this.store.tokens.revokeOne(tokenHash);
  }

  lookup(token: string): TokenSeat | undefined {
    if (!token.startsWith(TOKEN_PREFIX)) return undefined;
    return this.#byHash.get(hashToken(token));
  }
}
