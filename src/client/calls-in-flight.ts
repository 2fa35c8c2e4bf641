/**
 * The calls a client has sent and not yet seen answered, so that it can let
 * them land before it closes (a call sent just before the agent quit still
 * reaches the hub).
 */
export class CallsInFlight {
  readonly #calls = new Set<Promise<unknown>>();

  /** Keeps `sent` until it settles; returns it unchanged. */
  track<T>(sent: Promise<T>): Promise<T> {
    this.#calls.add(sent);
    const done = (): void => {
      this.#calls.delete(sent);
    };
    sent.then(done, done);
    return sent;
  }

  /** Resolves once every call tracked so far has been answered (or failed). */
  async settle(): Promise<void> {
    while (this.#calls.size > 0) await Promise.allSettled([...this.#calls]);
  }
}
