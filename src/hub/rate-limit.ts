import { ParleyError } from '../errors/parley-error.js';

/**
 * A per-participant post rate limit: a token bucket of `perMinute` posts that
 * refills continuously. Off when `perMinute` is 0 (the default). Kept in
 * memory: a restart forgives.
 */
export class RateLimiter {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number,
  ) {}

  /** Takes one post from the participant's bucket, or throws RATE_LIMITED saying when to retry. */
  take(participantId: string, handle: string): void {
    if (this.perMinute <= 0) return;
    const now = this.now();
    const bucket = this.#buckets.get(participantId) ?? { tokens: this.perMinute, at: now };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + ((now - bucket.at) / 60_000) * this.perMinute);
    bucket.at = now;
    if (bucket.tokens < 1) {
      const waitMs = Math.ceil(((1 - bucket.tokens) / this.perMinute) * 60_000);
      this.#buckets.set(participantId, bucket);
      throw new ParleyError(
        'RATE_LIMITED',
        `@${handle} is posting faster than the hub allows (${this.perMinute} per minute); nothing was stored. Retry in ${Math.ceil(waitMs / 1000)} s.`,
        { details: { retryAfterMs: waitMs } },
      );
    }
    bucket.tokens -= 1;
    this.#buckets.set(participantId, bucket);
  }
}
