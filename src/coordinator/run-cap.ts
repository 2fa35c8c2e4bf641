/**
 * The cost guard: each run is a model call a real adapter pays for, so the
 * coordinator starts at most `maxPerHour` runs of one agent, and at most as
 * many for one author's messages, in any rolling hour
 * (`coordinator.maxRunsPerHour`). A member mentioning an agent in twenty new
 * channels gets that many runs, not twenty. Counted in memory: only the
 * coordinator's operator can restart it.
 */
export const RUN_CAP_WINDOW_MS = 3_600_000;

export interface CapRefusal {
  /** Whose runs are used up: the agent's, or those the author's messages start. */
  who: 'agent' | 'author';
  /** When one of them leaves the window (epoch ms). */
  until: number;
}

export class RunCap {
  /** Start times within the window, oldest first, by "agent:ID" and "author:ID". */
  readonly #starts = new Map<string, number[]>();

  constructor(
    private readonly maxPerHour: number,
    private readonly now: () => number,
  ) {}

  /** Why a run of `agent` for a message of `author` may not start now, or undefined when it may. */
  refusal(agent: string, author: string): CapRefusal | undefined {
    const byAgent = this.#recent(`agent:${agent}`);
    if (byAgent.length >= this.maxPerHour) return { who: 'agent', until: byAgent[byAgent.length - this.maxPerHour]! + RUN_CAP_WINDOW_MS };
    const byAuthor = this.#recent(`author:${author}`);
    if (byAuthor.length >= this.maxPerHour) return { who: 'author', until: byAuthor[byAuthor.length - this.maxPerHour]! + RUN_CAP_WINDOW_MS };
    return undefined;
  }

  /** Counts a run starting now, against its agent and each author it answers. */
  record(agent: string, authors: Iterable<string>): void {
    const now = this.now();
    for (const key of [`agent:${agent}`, ...[...new Set(authors)].map((a) => `author:${a}`)]) {
      this.#starts.set(key, [...this.#recent(key), now]);
    }
  }

  #recent(key: string): number[] {
    const since = this.now() - RUN_CAP_WINDOW_MS;
    const kept = (this.#starts.get(key) ?? []).filter((t) => t > since);
    if (kept.length === 0) this.#starts.delete(key);
    else this.#starts.set(key, kept);
    return kept;
  }
}
