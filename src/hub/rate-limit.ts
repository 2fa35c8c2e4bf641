import { ParleyError } from '../errors/parley-error.js';

/**
 * The per-participant write limit: a token bucket holding up to `burst`
 * writes that refills continuously at `perMinute`. Off when `perMinute` is 0.
 * Kept in memory: a restart forgives.
 *
 * A write is anything that adds to what others read: a message, DM, request
 * or response, a line said in a meeting or entering one, a channel created or
 * renamed, a side channel opened or closed, any control (prod and invite
 * included). Not counted, because they only keep one's own place or must never
 * be refused: reading, subscriptions, read marks, acks, profile, presence
 * (heartbeats) and leaving a meeting. The hub's gate takes a write as it
 * admits a call, so that calls in flight together cannot all pass, and gives
 * it back if the call is refused.
 */
export class RateLimiter {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly limit: { burst: number; perMinute: number },
    private readonly now: () => number,
  ) {}

  /** Takes one write from the participant's bucket, or throws RATE_LIMITED saying when to retry. */
  take(participantId: string, handle: string): void {
    const { burst, perMinute } = this.limit;
    if (perMinute <= 0) return;
    const now = this.now();
    const bucket = this.#buckets.get(participantId) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 60_000) * perMinute);
    bucket.at = now;
    this.#buckets.set(participantId, bucket);
    if (bucket.tokens < 1) {
      const waitMs = Math.ceil(((1 - bucket.tokens) / perMinute) * 60_000);
      throw new ParleyError(
        'RATE_LIMITED',
        `@${handle} is writing faster than the hub allows (bursts of ${burst}, then ${perMinute} per minute); nothing was stored. Retry in ${Math.ceil(waitMs / 1000)} s.`,
        { details: { retryAfterMs: waitMs } },
      );
    }
    bucket.tokens -= 1;
  }

  /** Gives back a write taken for a call that was then refused: only what is done counts. */
  refund(participantId: string): void {
    const bucket = this.#buckets.get(participantId);
    if (bucket) bucket.tokens = Math.min(this.limit.burst, bucket.tokens + 1);
  }
}
