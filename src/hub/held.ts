// What an entry that opens a stream or a connection hands the gate, so the
// gate can hold its caller present until it ends.

/** How a stream or connection tells that it ended: once, to everyone listening, at once to those who come late. */
export class Ending {
  #ended = false;
  readonly #callbacks: Array<() => void> = [];

  get ended(): boolean {
    return this.#ended;
  }

  readonly end = (): void => {
    if (this.#ended) return;
    this.#ended = true;
    for (const callback of this.#callbacks.splice(0)) callback();
  };

  onEnd(callback: () => void): void {
    if (this.#ended) callback();
    else this.#callbacks.push(callback);
  }
}

/** A stream or connection an entry opens: its value, and its ending (which may have come already, as the hub closes). */
export interface Held<R> {
  value: R;
  ending: Ending;
}
