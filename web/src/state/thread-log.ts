import type { ParleyEvent } from '../types.js';

/**
 * The part of one thread's log the page holds, in seq order. History pages
 * and live events both merge in here, keyed by seq, so an event that arrives
 * twice (a replay after reconnecting, a page that overlaps the stream) is
 * kept once and nothing is shown out of order.
 */
export class ThreadLog {
  events: ParleyEvent[] = [];
  readonly byId = new Map<string, ParleyEvent>();
  readonly #seqs = new Set<number>();
  /** Older events exist in the store than the oldest held here. */
  hasOlder = true;
  /** Newer events may exist than the newest held here (after a jump into the middle). */
  hasNewer = false;
  /** Live events that arrived while newer pages were outstanding: merged once the log reaches the newest. */
  #waiting: ParleyEvent[] = [];
  loaded = false;

  get oldestSeq(): number | undefined {
    return this.events[0]?.seq;
  }

  get newestSeq(): number | undefined {
    return this.events[this.events.length - 1]?.seq;
  }

  has(seq: number): boolean {
    return this.#seqs.has(seq);
  }

  /** Adds what is new; returns how many events were added. */
  merge(events: readonly ParleyEvent[]): number {
    const fresh = events.filter((e) => !this.#seqs.has(e.seq));
    if (fresh.length === 0) return 0;
    for (const e of fresh) {
      this.#seqs.add(e.seq);
      this.byId.set(e.id, e);
    }
    const newest = this.newestSeq ?? 0;
    const appended = fresh.every((e) => e.seq > newest);
    this.events = this.events.concat(fresh);
    // The common case, a live event after everything held, keeps the order as it is.
    if (!appended || !isAscending(fresh)) this.events.sort((a, b) => a.seq - b.seq);
    return fresh.length;
  }

  /** A live event: merged now, or kept until the pages in between are loaded (no gap either way). */
  live(event: ParleyEvent): number {
    if (!this.hasNewer) return this.merge([event]);
    this.#waiting.push(event);
    return 0;
  }

  /** The newest page has been loaded: what arrived meanwhile joins the log. */
  reachedNewest(): void {
    this.hasNewer = false;
    const waiting = this.#waiting;
    this.#waiting = [];
    this.merge(waiting);
  }

  indexOfSeq(seq: number): number {
    let lo = 0;
    let hi = this.events.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const at = this.events[mid]!.seq;
      if (at === seq) return mid;
      if (at < seq) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  clear(): void {
    this.events = [];
    this.byId.clear();
    this.#seqs.clear();
    this.hasOlder = true;
    this.hasNewer = false;
    this.#waiting = [];
    this.loaded = false;
  }
}

function isAscending(events: readonly ParleyEvent[]): boolean {
  for (let i = 1; i < events.length; i++) if (events[i]!.seq <= events[i - 1]!.seq) return false;
  return true;
}
