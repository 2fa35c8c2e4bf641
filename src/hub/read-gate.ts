// Heavy reads (history, new messages, search, inbox, export pages) are
// scheduled so they never crowd out writers or other participants:
//
// - per participant, at most `perParticipant` run at once and the rest wait
//   in order, so one participant firing many big reads holds a bounded amount
//   of memory and queues behind itself;
// - hub-wide, read steps (each bounded by chat.limits.maxReadBytes) run back
//   to back for at most READ_SLICE_MS, then the event loop gets a turn, so the
//   I/O of a post arriving meanwhile waits at most about one slice however
//   many reads are queued. Store reads are synchronous: without this, a burst
//   of them back to back would hold every writer up.

/** How long read steps may run back to back before the event loop gets a turn (a post waits at most about this). */
const READ_SLICE_MS = 4;

interface Lane {
  running: number;
  waiting: Array<() => void>;
}

export class ReadGate {
  readonly #lanes = new Map<string, Lane>();
  /** Read steps waiting for the event loop's next turn. */
  readonly #waiting: Array<() => void> = [];
  #pumping = false;
  #sliceStarted = 0;

  constructor(private readonly perParticipant: number) {}

  async run<T>(participantId: string, read: () => T | Promise<T>): Promise<T> {
    const release = await this.#hold(participantId);
    try {
      await this.#turn();
      let result: T | Promise<T>;
      try {
        // The store is read synchronously here; whatever read awaits after that (the search worker) runs outside the slice.
        result = read();
      } finally {
        this.#stepDone();
      }
      return await result;
    } finally {
      release();
    }
  }

  /** Takes one of the participant's turns until the returned release is called. */
  async #hold(participantId: string): Promise<() => void> {
    let lane = this.#lanes.get(participantId);
    if (!lane) {
      lane = { running: 0, waiting: [] };
      this.#lanes.set(participantId, lane);
    }
    if (lane.running >= this.perParticipant) {
      const queued = lane;
      await new Promise<void>((resolve) => queued.waiting.push(resolve));
    } else lane.running++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#release(participantId);
    };
  }

  /**
   * Resolves when this read may run: steps run in order, back to back within
   * a slice of READ_SLICE_MS, and each slice starts on a new event-loop turn,
   * after the I/O (incoming posts) that arrived meanwhile.
   */
  #turn(): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      if (!this.#pumping) {
        this.#pumping = true;
        setImmediate(this.#startSlice);
      }
    });
  }

  readonly #startSlice = (): void => {
    this.#sliceStarted = performance.now();
    this.#next();
  };

  #next(): void {
    const step = this.#waiting.shift();
    if (step) step();
    else this.#pumping = false;
  }

  /** A step has read what it reads synchronously: the next one runs now if the slice has time left, else on the next turn. */
  #stepDone(): void {
    if (this.#waiting.length === 0) {
      this.#pumping = false;
      return;
    }
    if (performance.now() - this.#sliceStarted < READ_SLICE_MS) this.#next();
    else setImmediate(this.#startSlice);
  }

  #release(participantId: string): void {
    const lane = this.#lanes.get(participantId);
    if (!lane) return;
    const next = lane.waiting.shift();
    // The turn passes straight to the next waiting read (running stays the same).
    if (next) next();
    else if (--lane.running === 0) this.#lanes.delete(participantId);
  }
}
