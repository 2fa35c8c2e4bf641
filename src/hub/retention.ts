// Retention: a channel keeps its last `retention.hours` or its newest
// `retention.messages` events, whichever is smaller, and the hub
// prunes the rest in the background. Pruning never holds the writer long: it
// deletes in chunks through the same group commit as posts, each chunk sized
// to `retention.chunkBudgetMs`, and yields between chunks so posts go first.
//
// Kept whatever the limits: pinned threads (and the side channels of a pinned
// channel), each thread's creation event, open requests with their responses,
// and the store's newest event (see RetentionStore).

import { performance } from 'node:perf_hooks';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Config } from '../config/schema.js';
import { inBackground, settled } from '../util/background.js';
import type { PrunableEvent, RetentionStore } from '../store/retention-store.js';
import type { HubContext } from './context.js';
import type { ThreadKind, ThreadRecord } from './records.js';

export interface RetentionLimits {
  hours: number;
  /** Infinity: no cap on the count. */
  messages: number;
}

/** Where other parts of the hub plug into retention. */
export interface RetentionSeams {
  /**
   * A channel's own limits (its access policy), or undefined for the config's.
   * Only channels are asked: a side channel follows its parent channel, a DM
   * uses the config's.
   */
  channelLimits?: (channel: RetainedThread) => Partial<RetentionLimits> | undefined;
  /** Whether the roster marks this hub as an archive member: it then keeps `retention.archiveHours`, however many events. */
  isArchive?: () => boolean;
}

/** What retention reads of a thread: the hub's record, or a row of the store (doctor). */
export interface RetainedThread {
  id: string;
  kind: ThreadKind;
  parentId?: string;
  createdSeq: number;
  pinned: boolean;
}

export function retainedThread(thread: ThreadRecord): RetainedThread {
  return {
    id: thread.id,
    kind: thread.kind,
    ...(thread.parentId === undefined ? {} : { parentId: thread.parentId }),
    createdSeq: thread.createdSeq,
    pinned: thread.state.pinned,
  };
}

/** Side channels nest; a loop in the parent links (a corrupt store) must not hang the pruner. */
const MAX_PARENT_DEPTH = 32;

/** The limits of one thread, or 'keep' when it is pinned (or is a side channel of a pinned thread). */
export function retentionFor(
  config: Config['retention'],
  thread: RetainedThread,
  threadById: (id: string) => RetainedThread | undefined,
  seams: RetentionSeams = {},
): RetentionLimits | 'keep' {
  let owner = thread;
  for (let depth = 0; ; depth += 1) {
    if (owner.pinned) return 'keep';
    const parent = owner.parentId === undefined || depth >= MAX_PARENT_DEPTH ? undefined : threadById(owner.parentId);
    if (!parent) break;
    owner = parent;
  }
  const own = owner.kind === 'dm' ? undefined : seams.channelLimits?.(owner);
  const limits = { hours: own?.hours ?? config.hours, messages: own?.messages ?? config.messages };
  if (seams.isArchive?.()) return { hours: Math.max(limits.hours, config.archiveHours), messages: Infinity };
  return limits;
}

/** The newest seq of the thread past its limits (0: nothing is). Everything up to it may go, except what is always kept. */
export function cutoffOf(store: RetentionStore, threadId: string, limits: RetentionLimits, now: number): number {
  const byAge = store.ageCutoff(threadId, now - limits.hours * 3_600_000);
  const byCount = Number.isFinite(limits.messages) ? store.countCutoff(threadId, limits.messages) : 0;
  return Math.max(byAge, byCount);
}

/** What retention would free now, without changing anything (doctor). */
export function estimateRetention(
  store: RetentionStore,
  threads: readonly RetainedThread[],
  config: Config['retention'],
  now: number,
  seams: RetentionSeams = {},
): { events: number; bytes: number; threads: number } {
  const byId = new Map(threads.map((t) => [t.id, t]));
  const newest = store.newestSeq();
  const total = { events: 0, bytes: 0, threads: 0 };
  for (const thread of threads) {
    const limits = retentionFor(config, thread, (id) => byId.get(id), seams);
    if (limits === 'keep') continue;
    const cutoff = cutoffOf(store, thread.id, limits, now);
    if (cutoff === 0) continue;
    const freed = store.estimate(thread.id, cutoff, { created: thread.createdSeq, newest });
    if (freed.events === 0) continue;
    total.events += freed.events;
    total.bytes += freed.bytes;
    total.threads += 1;
  }
  return total;
}

export interface PruneReport {
  /** Events deleted. */
  events: number;
  /** Threads that lost events. */
  threads: number;
  /** Writes it took (each one chunk within the time budget). */
  chunks: number;
  /** Pages given back to the file system. */
  pagesFreed: number;
}

/** Chunk sizes stay in this range whatever the measurements say (the research measured ~250 rows in 4 ms here). */
const MIN_CHUNK_ROWS = 16;
const MAX_CHUNK_ROWS = 1000;
const FIRST_CHUNK_ROWS = 128;
/** Pages given back per write by incremental_vacuum, sized like the event chunks. */
const MIN_VACUUM_PAGES = 16;
const MAX_VACUUM_PAGES = 4096;

/** The next chunk's size: as many as fit the budget at the rate just measured, at most doubling. */
export function nextChunkSize(size: number, elapsedMs: number, budgetMs: number, min: number, max: number): number {
  const fitting = elapsedMs <= 0 ? size * 2 : Math.floor((size * budgetMs) / elapsedMs);
  return Math.max(min, Math.min(max, size * 2, fitting));
}

/**
 * Runs retention every `retention.intervalMs` while the hub is open; `prune`
 * runs a pass now. Passes never overlap.
 */
export class RetentionPruner {
  readonly #ctx: HubContext;
  readonly #seams: RetentionSeams;
  #timer: NodeJS.Timeout | undefined;
  #chain: Promise<unknown> = Promise.resolve();
  #stopped = false;
  #rows = FIRST_CHUNK_ROWS;
  #pages = MIN_VACUUM_PAGES * 4;

  constructor(ctx: HubContext, seams: RetentionSeams = {}) {
    this.#ctx = ctx;
    this.#seams = seams;
  }

  start(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      const pass = this.prune().then(
        () => this.start(),
        (error: unknown) => {
          this.#ctx.logger.error('retention pass failed; the next one tries again', { error });
          this.start();
        },
      );
      inBackground(pass, this.#ctx.logger, 'scheduling the next retention pass');
    }, this.#ctx.config.retention.intervalMs);
    // A hub otherwise done does not stay up for this.
    this.#timer.unref();
  }

  /** Stops the timer and waits for a pass under way, which ends at its next chunk. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    // A pass's failure is its caller's (start logs it); stopping only waits for it.
    await settled(this.#chain);
  }

  /** One pass now, after any pass under way. */
  prune(): Promise<PruneReport> {
    // The pass before is only waited for: its failure went to its own caller.
    const pass = settled(this.#chain).then(() => this.#pass());
    this.#chain = pass;
    return pass;
  }

  /** The limits of a thread now (a pin, or a policy change, takes effect at the next chunk). */
  limitsFor(thread: ThreadRecord): RetentionLimits | 'keep' {
    const threads = this.#ctx.state.threads;
    return retentionFor(this.#ctx.config.retention, retainedThread(thread), (id) => {
      const found = threads.get(id);
      return found && retainedThread(found);
    }, this.#seams);
  }

  async #pass(): Promise<PruneReport> {
    const report: PruneReport = { events: 0, threads: 0, chunks: 0, pagesFreed: 0 };
    if (this.#stopped) return report;
    await this.#trimApplied();
    const budgetMs = this.#ctx.config.retention.chunkBudgetMs;
    let slice = performance.now();
    for (const thread of [...this.#ctx.state.threads.values()]) {
      if (this.#stopped) break;
      // Looking at many threads with nothing to prune is work too: the writer gets its turns meanwhile.
      if (performance.now() - slice > budgetMs) {
        await yieldToLoop();
        slice = performance.now();
      }
      const { events, chunks } = await this.#pruneThread(thread);
      report.events += events;
      report.chunks += chunks;
      if (events > 0) report.threads += 1;
    }
    if (report.events > 0) report.pagesFreed = await this.#vacuum();
    return report;
  }

  async #pruneThread(thread: ThreadRecord): Promise<{ events: number; chunks: number }> {
    const ctx = this.#ctx;
    const store = ctx.store.retention;
    // Read before writing, so a thread with nothing past its limits costs no write. Events only ever
    // join a thread at its newest end, so a cutoff read now stays valid for the whole pass.
    const limits = this.limitsFor(thread);
    if (limits === 'keep') return { events: 0, chunks: 0 };
    const cutoff = cutoffOf(store, thread.id, limits, ctx.now());
    if (cutoff === 0 || store.prunable(thread.id, 0, cutoff, { created: thread.createdSeq, newest: store.newestSeq() }, 1).length === 0) {
      return { events: 0, chunks: 0 };
    }
    let after = 0;
    let events = 0;
    let chunks = 0;
    for (;;) {
      if (this.#stopped) break;
      const asked = this.#rows;
      const started = performance.now();
      // Which rows go is decided inside the write: the same batch holds what was read and what is deleted.
      const { value: chunk, committed } = ctx.store.writes.write(
        (): { batch: PrunableEvent[]; record: number } | undefined => {
          // Pinned meanwhile: stop here.
          if (this.limitsFor(thread) === 'keep') return undefined;
          const batch = store.prunable(thread.id, after, cutoff, { created: thread.createdSeq, newest: store.newestSeq() }, asked);
          if (batch.length === 0) return undefined;
          return { batch, record: store.remove(thread.id, batch, ctx.now()) };
        },
        (done) => {
          if (done) ctx.search.remove(done.batch.map((e) => e.seq), done.record);
        },
      );
      // Committed at once, so the budget covers what the writer really spends: the deletes and their commit.
      ctx.store.writes.flush();
      this.#rows = nextChunkSize(asked, performance.now() - started, ctx.config.retention.chunkBudgetMs, MIN_CHUNK_ROWS, MAX_CHUNK_ROWS);
      await committed;
      if (!chunk) break;
      chunks += 1;
      events += chunk.batch.length;
      if (chunk.batch.length < asked) break;
      after = chunk.batch[chunk.batch.length - 1]?.seq ?? after;
      // Posts waiting for the writer go before the next chunk.
      await yieldToLoop();
    }
    return { events, chunks };
  }

  /** Drops the pruned records the search index has applied. */
  async #trimApplied(): Promise<void> {
    const mark = this.#ctx.search.prunedMark;
    if (mark <= this.#ctx.store.retention.trimmedUpTo()) return;
    await this.#ctx.store.writes.write(() => this.#ctx.store.retention.trim(mark)).committed;
  }

  /** Gives the emptied pages back to the file system, a budget's worth per write (stores made with auto_vacuum=INCREMENTAL). */
  async #vacuum(): Promise<number> {
    const ctx = this.#ctx;
    const store = ctx.store.retention;
    if (store.fileStats().autoVacuum !== 'incremental') return 0;
    let freed = 0;
    while (!this.#stopped) {
      const free = store.fileStats().freePages;
      if (free === 0) break;
      const asked = Math.min(this.#pages, free);
      const started = performance.now();
      const { committed } = ctx.store.writes.write(() => store.incrementalVacuum(asked));
      ctx.store.writes.flush();
      this.#pages = nextChunkSize(asked, performance.now() - started, ctx.config.retention.chunkBudgetMs, MIN_VACUUM_PAGES, MAX_VACUUM_PAGES);
      await committed;
      freed += asked;
      await yieldToLoop();
    }
    return freed;
  }
}
