import { ParleyError } from '../errors/parley-error.js';

/**
 * Slows down password guessing. Each client address may fail the hub password
 * `maxFailures` times per window; after that, every password attempt from it
 * (right or wrong, so that a lockout says nothing about the password) is
 * refused with RATE_LIMITED until the window ends. Bearer tokens are 256
 * random bits and are not throttled. Kept in memory: a restart forgives.
 */
export class SignInThrottle {
  readonly #failures = new Map<string, { count: number; since: number }>();

  constructor(
    private readonly maxFailures: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws RATE_LIMITED, saying when to retry, while the address is locked out. */
  check(address: string): void {
    const entry = this.#current(address);
    if (!entry || entry.count < this.maxFailures) return;
    const retryAfterMs = entry.since + this.windowMs - this.now();
    throw new ParleyError(
      'RATE_LIMITED',
      `Too many wrong passwords from this address (${this.maxFailures} in ${Math.round(this.windowMs / 1000)} s); password sign-in is refused for ${Math.ceil(retryAfterMs / 1000)} s.`,
      { details: { retryAfterMs } },
    );
  }

  failed(address: string): void {
    const entry = this.#current(address);
    if (entry) entry.count += 1;
    else this.#failures.set(address, { count: 1, since: this.now() });
    if (this.#failures.size > 1024) this.#prune();
  }

  succeeded(address: string): void {
    this.#failures.delete(address);
  }

  #current(address: string): { count: number; since: number } | undefined {
    const entry = this.#failures.get(address);
    if (entry && this.now() - entry.since >= this.windowMs) {
      this.#failures.delete(address);
      return undefined;
    }
    return entry;
  }

  #prune(): void {
    for (const address of [...this.#failures.keys()]) this.#current(address);
  }
}
