/**
 * The hub's shutdown: once closing, new operations are refused, and closing
 * waits for the operations already in flight (a post awaiting its secret scan,
 * say) so that each either finishes and is acknowledged or was never started.
 */
export class Lifecycle {
  closing = false;
  readonly #inflight = new Set<Promise<unknown>>();

  track<T>(operation: Promise<T>): Promise<T> {
    this.#inflight.add(operation);
    const done = (): void => {
      this.#inflight.delete(operation);
    };
    operation.then(done, done);
    return operation;
  }

  get inflight(): number {
    return this.#inflight.size;
  }

  /** Resolves when nothing is in flight any more. */
  async drain(): Promise<void> {
    while (this.#inflight.size > 0) await Promise.allSettled([...this.#inflight]);
  }
}
