/**
 * Stops an agent's stop hook blocked in a row, per participant and client
 * session, kept in memory: what keeps a hook that makes the agent go on from
 * looping forever. A stop let through (or a session's start or end) starts the
 * count again. Bounded: past `capacity` client sessions, the least recently counted
 * is forgotten (it then counts from zero, still bounded by the client's own
 * facts: stop_hook_active, Cursor's loop_count).
 */
export class StopContinuations {
  readonly #counts = new Map<string, number>();

  constructor(private readonly capacity: number) {}

  count(participant: string, clientSession: string): number {
    return this.#counts.get(keyOf(participant, clientSession)) ?? 0;
  }

  /** One more stop blocked in a row; returns the new count. */
  blocked(participant: string, clientSession: string): number {
    const key = keyOf(participant, clientSession);
    const next = (this.#counts.get(key) ?? 0) + 1;
    // Re-inserted, so the map's order is that of the last use and the first entry is the one to forget.
    this.#counts.delete(key);
    this.#counts.set(key, next);
    if (this.#counts.size > this.capacity) this.#counts.delete(this.#counts.keys().next().value!);
    return next;
  }

  /** The run of blocked stops ends (a stop let through, a new or ended session). */
  reset(participant: string, clientSession: string): void {
    this.#counts.delete(keyOf(participant, clientSession));
  }
}

function keyOf(participant: string, clientSession: string): string {
  return `${participant}\n${clientSession}`;
}
