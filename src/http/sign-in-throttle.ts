import { ParleyError } from '../errors/parley-error.js';

/**
 * Slows down password guessing, per account (the handle signed in as) and per
 * client (see clientKeyOf: all of loopback is one client). Each may fail
 * `maxFailures` times freely; the failure that reaches the limit starts a wait
 * of `backoffMs`, and each further failure doubles it, up to `maxBackoffMs`.
 * While either the account or the client is waiting, every password attempt
 * (right or wrong, so that a refusal says nothing about the password) is
 * refused with RATE_LIMITED and is not counted: guessing during a wait never
 * extends it, so the wait ends on schedule and the right password works on
 * the first attempt after it.
 *
 * A success clears nothing: the password is the same for every account and
 * everyone on the machine is the same client, so a success says nothing about
 * who made the failures, and clearing them would give a guesser a fresh
 * allowance each time the human signs in. Failures are forgotten after
 * `forgetMs` without another. At most `maxTracked` accounts and clients are
 * remembered (the least recently failed are dropped first), so varying the
 * handle cannot grow memory without bound. Bearer tokens are 256 random bits
 * and are not throttled. Kept in memory: a restart forgives.
 */
export interface SignInLimits {
  maxFailures: number;
  backoffMs: number;
  maxBackoffMs: number;
  forgetMs: number;
  maxTracked: number;
}

/** Who is trying: the account signed in as and the client it comes from. */
export interface SignInAttempt {
  account: string;
  client: string;
}

interface Failures {
  count: number;
  lastAt: number;
  /** Password attempts are refused until then. */
  waitUntil: number;
}

export class SignInThrottle {
  /** In order of last failure, oldest first. */
  readonly #failures = new Map<string, Failures>();

  constructor(
    private readonly limits: SignInLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Runs `verify` (the password comparison) unless the account or client must
   * wait, and counts a failure when it answers false. Throws RATE_LIMITED,
   * saying how long to wait, instead of verifying during a wait.
   */
  attempt(who: SignInAttempt, verify: () => boolean): boolean {
    const now = this.now();
    const keys = keysOf(who);
    this.#refuseWhileWaiting(who, keys, now);
    const ok = verify();
    if (!ok) for (const key of keys) this.#fail(key, now);
    this.#trim(now);
    return ok;
  }

  /** How many accounts and clients are remembered. */
  get tracked(): number {
    return this.#failures.size;
  }

  #refuseWhileWaiting(who: SignInAttempt, keys: string[], now: number): void {
    const waits = keys.map((key) => ({ key, until: this.#live(key, now)?.waitUntil ?? 0 }));
    const longest = waits.reduce((a, b) => (b.until > a.until ? b : a));
    if (longest.until <= now) return;
    const retryAfterMs = longest.until - now;
    const whose = longest.key === keys[0] ? `for "@${accountOf(who)}"` : 'from this client';
    throw new ParleyError(
      'RATE_LIMITED',
      `Too many wrong passwords ${whose}; password sign-in is refused for ${Math.ceil(retryAfterMs / 1000)} s. Attempts until then are not counted; a signed-in page and tokens keep working.`,
      { details: { retryAfterMs } },
    );
  }

  #fail(key: string, now: number): void {
    const previous = this.#live(key, now);
    const count = (previous?.count ?? 0) + 1;
    const over = count - this.limits.maxFailures;
    const waitMs = over < 0 ? 0 : Math.min(this.limits.backoffMs * 2 ** Math.min(over, 40), this.limits.maxBackoffMs);
    // Re-inserted so that the map stays in order of last failure.
    this.#failures.delete(key);
    this.#failures.set(key, { count, lastAt: now, waitUntil: now + waitMs });
  }

  #live(key: string, now: number): Failures | undefined {
    const entry = this.#failures.get(key);
    if (entry && !this.#remembered(entry, now)) {
      this.#failures.delete(key);
      return undefined;
    }
    return entry;
  }

  #remembered(entry: Failures, now: number): boolean {
    return entry.waitUntil > now || now - entry.lastAt < this.limits.forgetMs;
  }

  /** Drops forgotten entries from the old end, then the oldest while over the cap. */
  #trim(now: number): void {
    for (const [key, entry] of this.#failures) {
      if (this.#failures.size > this.limits.maxTracked || !this.#remembered(entry, now)) this.#failures.delete(key);
      else break;
    }
  }
}

function keysOf(who: SignInAttempt): string[] {
  return [`account:${accountOf(who)}`, `client:${who.client}`];
}

/** Handles are case-insensitive; the length cap keeps a long Basic user name from costing memory. */
function accountOf(who: SignInAttempt): string {
  return who.account.trim().toLowerCase().slice(0, 64);
}
