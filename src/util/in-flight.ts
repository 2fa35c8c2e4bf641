/**
 * Promises started and not yet settled, so that their owner can let them
 * land before it closes: the hub's operations at shutdown (each either
 * finishes and is acknowledged or was never started), a client's calls sent
 * just before the agent quit (they still reach the hub).
 */
export class InFlight {
  readonly #promises = new Set<Promise<unknown>>();

  /** Keeps `promise` until it settles; returns it unchanged. */
  track<T>(promise: Promise<T>): Promise<T> {
    this.#promises.add(promise);
    const done = (): void => {
      this.#promises.delete(promise);
    };
    promise.then(done, done);
    return promise;
  }

  get size(): number {
    return this.#promises.size;
  }

  /** Resolves once every promise tracked so far, and any tracked meanwhile, has settled. */
  async settled(): Promise<void> {
    while (this.#promises.size > 0) await Promise.allSettled([...this.#promises]);
  }
}
