/**
 * Replay protection for envelopes that cross a boundary (the TTL rule): an
 * envelope is refused when `ts + ttl_secs` is past (expired), when its `ts` is
 * ahead of our clock (from the future), or when its id was already taken
 * (duplicate), each beyond the allowed clock skew. Ids are remembered only
 * until their envelope would have expired anyway, since TTL refuses anything
 * older. At the cap, new envelopes are refused instead of forgetting ids early,
 * which would let a replay through.
 */

export type ReplayVerdict = 'ok' | 'expired' | 'future' | 'duplicate' | 'full';

export interface ReplayGuardOptions {
  clockSkewSecs: number;
  maxIds: number;
  now: () => number;
}

export class ReplayGuard {
  readonly #options: ReplayGuardOptions;
  /** Id → the second after which it may be forgotten. */
  readonly #expiries = new Map<string, number>();
  /** Ids by the second they may be forgotten, and those seconds in order: forgetting is cheap and in order. */
  readonly #buckets = new Map<number, string[]>();
  readonly #seconds: number[] = [];

  constructor(options: ReplayGuardOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#expiries.size;
  }

  /** Checks an envelope and, when it passes, remembers its id. */
  admit(id: string, tsMillis: number, ttlSecs: number): ReplayVerdict {
    const verdict = this.check(id, tsMillis, ttlSecs);
    if (verdict === 'ok') this.#remember(id, tsMillis, ttlSecs);
    return verdict;
  }

  /** What `admit` would answer, changing nothing but forgetting expired ids. */
  check(id: string, tsMillis: number, ttlSecs: number): ReplayVerdict {
    const now = this.#options.now();
    this.#forgetExpired(now);
    const inTime = this.#timeVerdict(tsMillis, ttlSecs, now);
    if (inTime !== 'ok') return inTime;
    if (this.#expiries.has(id)) return 'duplicate';
    if (this.#expiries.size >= this.#options.maxIds) return 'full';
    return 'ok';
  }

  /**
   * Only the time rules (within its TTL, not from the future, both beyond the
   * allowed skew), for an envelope whose replay is refused otherwise: a linked
   * hub's event is taken once by its stored id.
   */
  timeVerdict(tsMillis: number, ttlSecs: number): 'ok' | 'expired' | 'future' {
    return this.#timeVerdict(tsMillis, ttlSecs, this.#options.now());
  }

  #timeVerdict(tsMillis: number, ttlSecs: number, now: number): 'ok' | 'expired' | 'future' {
    const skew = this.#options.clockSkewSecs * 1000;
    if (tsMillis - skew > now) return 'future';
    if (tsMillis + ttlSecs * 1000 + skew < now) return 'expired';
    return 'ok';
  }

  #remember(id: string, tsMillis: number, ttlSecs: number): void {
    const second = Math.ceil((tsMillis + ttlSecs * 1000 + this.#options.clockSkewSecs * 1000) / 1000);
    this.#expiries.set(id, second);
    let bucket = this.#buckets.get(second);
    if (!bucket) {
      bucket = [];
      this.#buckets.set(second, bucket);
      this.#seconds.splice(insertionPoint(this.#seconds, second), 0, second);
    }
    bucket.push(id);
  }

  #forgetExpired(now: number): void {
    const nowSecond = Math.floor(now / 1000);
    while (this.#seconds.length > 0 && this.#seconds[0]! < nowSecond) {
      const second = this.#seconds.shift()!;
      for (const id of this.#buckets.get(second) ?? []) this.#expiries.delete(id);
      this.#buckets.delete(second);
    }
  }
}

/** Where `value` goes in the ascending `sorted` (binary search). */
function insertionPoint(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}
