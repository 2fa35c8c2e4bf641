/**
 * Links an operator cut for a while (`parley peer block KEY --for 10m`): the
 * gater refuses a blocked hub's connections as it refuses a hub outside the
 * roster, and this hub does not dial it, until the block is lifted (`parley
 * peer unblock`) or runs out. Kept in memory: a restart lifts every block. A
 * partition made on purpose, to see that hubs converge when it heals.
 */

export class PeerBlocks {
  readonly #blocked = new Map<string, { until: number; timer: NodeJS.Timeout }>();
  readonly #now: () => number;
  readonly #lifted: (key: string) => void;

  constructor(now: () => number, lifted: (key: string) => void) {
    this.#now = now;
    this.#lifted = lifted;
  }

  /** Blocks the hub holding `key` for `forMs`; when it runs out (epoch ms). */
  block(key: string, forMs: number): number {
    clearTimeout(this.#blocked.get(key)?.timer);
    const until = this.#now() + forMs;
    const timer = setTimeout(() => this.unblock(key), forMs);
    timer.unref();
    this.#blocked.set(key, { until, timer });
    return until;
  }

  /** Lifts a block; false when the hub was not blocked. */
  unblock(key: string): boolean {
    const block = this.#blocked.get(key);
    if (!block) return false;
    clearTimeout(block.timer);
    this.#blocked.delete(key);
    this.#lifted(key);
    return true;
  }

  /** When the block of the hub holding `key` runs out (epoch ms); undefined: it is not blocked. */
  until(key: string): number | undefined {
    return this.#blocked.get(key)?.until;
  }

  stop(): void {
    for (const block of this.#blocked.values()) clearTimeout(block.timer);
    this.#blocked.clear();
  }
}
