/**
 * Heavy reads (history, new messages, search, inbox, export pages) are
 * scheduled so they never crowd out writers or other participants:
 *
 * - per participant, at most `perParticipant` run at once and the rest wait
 *   in order, so one participant firing many big reads holds a bounded amount
 *   of memory and queues behind itself;
 * - hub-wide, reads run one bounded step per event-loop turn (`turn()`), so
 *   the I/O of a post arriving meanwhile is handled between any two steps,
 *   however many reads are queued. Store reads are synchronous: without this,
 *   a burst of them back to back would hold every writer up.
 */
interface Lane {
  running: number;
  waiting: Array<() => void>;
}

export class ReadGate {
  readonly #lanes = new Map<string, Lane>();
  readonly #turns: Array<() => void> = [];
  #pumping = false;

  constructor(private readonly perParticipant: number) {}

  async run<T>(participantId: string, read: () => T | Promise<T>): Promise<T> {
    const release = await this.hold(participantId);
    try {
      await this.turn();
      return await read();
    } finally {
      release();
    }
  }

  /** Takes one of the participant's turns until the returned release is called (a streamed export holds it throughout). */
  async hold(participantId: string): Promise<() => void> {
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

  /** Resolves on a later event-loop turn, one waiting read step per turn, in order. */
  turn(): Promise<void> {
    return new Promise((resolve) => {
      this.#turns.push(resolve);
      if (!this.#pumping) {
        this.#pumping = true;
        setImmediate(this.#pump);
      }
    });
  }

  readonly #pump = (): void => {
    // The step runs in the microtasks right after this callback, before the loop's next I/O poll.
    this.#turns.shift()?.();
    if (this.#turns.length > 0) setImmediate(this.#pump);
    else this.#pumping = false;
  };

  #release(participantId: string): void {
    const lane = this.#lanes.get(participantId);
    if (!lane) return;
    const next = lane.waiting.shift();
    // The turn passes straight to the next waiting read (running stays the same).
    if (next) next();
    else if (--lane.running === 0) this.#lanes.delete(participantId);
  }
}
