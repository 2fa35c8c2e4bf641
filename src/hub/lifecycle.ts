import { InFlight } from '../util/in-flight.js';

/**
 * The hub's shutdown: once closing, new operations are refused, and closing
 * waits for the operations already in flight (a post awaiting its secret scan,
 * say) so that each either finishes and is acknowledged or was never started.
 */
export class Lifecycle {
  closing = false;
  readonly #inflight = new InFlight();

  track<T>(operation: Promise<T>): Promise<T> {
    return this.#inflight.track(operation);
  }

  get inflight(): number {
    return this.#inflight.size;
  }

  /** Resolves when nothing is in flight any more. */
  drain(): Promise<void> {
    return this.#inflight.settled();
  }
}
