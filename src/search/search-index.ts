/**
 * Full-text search, kept in a file of its own (`search.db`) and written by a
 * worker thread, so indexing never slows the posting path. The index is
 * derived from the log: it records the highest seq it holds and catches up
 * from the log with whatever lies above that, at start and after a failure.
 * Searching first waits until the worker has indexed everything handed to it,
 * so a search sees every acknowledged post (read-your-writes).
 *
 * The worker starts a few seconds after the hub opens, or at the first search
 * or the 500th post if one comes sooner: most hubs a test or a script opens
 * close again before they search, and a worker's start costs about as much
 * CPU as the rest of the opening. Until it starts, nothing is queued: it
 * catches up from the log.
 *
 * If indexing fails (a full disk, a crashed worker), search says why and the
 * indexer is restarted after a pause that doubles while it keeps failing; once
 * it can write again it catches up from the log, so nothing posted meanwhile
 * is missing and no restart of the hub is needed.
 */

import type { Worker } from 'node:worker_threads';
import { ParleyError } from '../errors/parley-error.js';
import { inBackground } from '../util/background.js';
import type { Logger } from '../util/logger.js';
import { DEFAULT_INDEX_BATCH, DEFAULT_INDEX_DELAY_MS, spawnIndexer, type WorkerMessage } from './indexer-worker.js';
import { SearchReader, type SearchScope } from './search-reader.js';
import type { SearchDoc, SearchSource } from './search-source.js';
import { searchUnavailable } from './search-unavailable.js';

// What the hub hands the index and how it searches, named where the index is.
export type { SearchDoc, SearchSource } from './search-source.js';
export type { SearchScope } from './search-reader.js';

/** The first pause before a failed indexer is restarted; it doubles while restarts keep failing... */
export const DEFAULT_INDEX_RETRY_MS = 1000;
/** ...up to this. */
export const DEFAULT_INDEX_MAX_RETRY_MS = 60_000;
/** Catching up reads the log this many events at a time, so memory stays flat however far behind the index is. */
const CATCH_UP_PAGE = 5000;
const CLOSE_TIMEOUT_MS = 10_000;
/** How long after the hub opens the indexer starts unless a search starts it sooner... */
export const DEFAULT_INDEX_START_DELAY_MS = 3000;
/** ...or this many posts do: a busy hub indexes as it posts, instead of reading back all it posted at the start. */
export const DEFAULT_INDEX_START_AFTER_DOCS = 500;

/**
 * idle: no worker yet; documents are dropped (the log has them) until it
 * starts and catches up. live: documents go to the worker as they come.
 * catching-up: the log is fed in order and new documents wait their turn.
 * down: the indexer failed; documents are dropped until a restart catches up.
 */
type IndexState = 'idle' | 'live' | 'catching-up' | 'down';

export class SearchIndex {
  #worker: Worker | undefined;
  #exited = true;
  readonly #logger: Logger;
  readonly #source: SearchSource;
  readonly #waiters = new Map<number, { resolve: (indexed: number) => void; reject: (error: unknown) => void }>();
  readonly #reader: SearchReader;
  #queue: SearchDoc[] = [];
  #scheduled: NodeJS.Timeout | undefined;
  #nextId = 1;
  #state: IndexState = 'idle';
  #startTimer: NodeJS.Timeout | undefined;
  /** Documents dropped while idle; DEFAULT_INDEX_START_AFTER_DOCS of them start the indexer. */
  #idleDocs = 0;
  #starting: Promise<void> | undefined;
  #catchingUp: Promise<void> | undefined;
  #closed = false;
  #failure: Error | undefined;
  #retryMs = DEFAULT_INDEX_RETRY_MS;
  #retryTimer: NodeJS.Timeout | undefined;
  #recovering: Promise<void> | undefined;
  #diskFull = false;
  #onClosed: (() => void) | undefined;
  #prunedMark = 0;

  /**
   * The index of the store the source reads. Its indexer starts after
   * `startDelayMs`, or at the first search, and catches up with the log. An
   * index made for another store, or holding seqs the store does not have (the
   * store lost its last commits), is emptied and rebuilt then.
   */
  constructor(
    readonly file: string,
    logger: Logger,
    source: SearchSource,
    startDelayMs: number = DEFAULT_INDEX_START_DELAY_MS,
  ) {
    this.#logger = logger;
    this.#source = source;
    this.#reader = new SearchReader(file);
    // A hub that is otherwise done does not stay up for this.
    this.#startTimer = setTimeout(() => inBackground(this.started('delay'), this.#logger, 'starting the search indexer'), startDelayMs).unref();
  }

  /**
   * Starts the indexer if it has not started, and resolves once it has caught
   * up with the log, or failed (then search says why, and restarts follow).
   */
  started(by: 'search' | 'delay' | 'posts' = 'search'): Promise<void> {
    if (this.#state === 'idle' && !this.#closed) {
      clearTimeout(this.#startTimer);
      this.#logger.debug('search indexer starting', { by });
      // Down until the worker is attached: what is posted meanwhile is in the log, which the start catches up from.
      this.#state = 'down';
      this.#starting = this.#restart(true).finally(() => (this.#starting = undefined));
    }
    return this.#starting ?? Promise.resolve();
  }

  /** Queues a committed event for indexing; documents go to the worker in batches. */
  add(doc: SearchDoc): void {
    if (this.#state === 'idle') {
      // The log keeps it: the start catches up from there.
      this.#idleDocs += 1;
      if (this.#idleDocs === DEFAULT_INDEX_START_AFTER_DOCS) inBackground(this.started('posts'), this.#logger, 'starting the search indexer');
      return;
    }
    // While down, the log keeps what is dropped here: the restart catches up from it.
    if (this.#closed || this.#state === 'down') return;
    this.#queue.push(doc);
    if (this.#state !== 'live') return;
    // Batched on this side too: a message per interval, not per commit, costs the posting thread less.
    if (this.#queue.length >= DEFAULT_INDEX_BATCH) this.#send();
    else this.#scheduled ??= setTimeout(() => this.#send(), DEFAULT_INDEX_DELAY_MS);
  }

  /**
   * Deletes pruned events from the index, after the documents handed over
   * before them; `record` is the store's pruned record that lists them. While
   * the indexer is down nothing is sent: its restart replays the records.
   */
  remove(seqs: readonly number[], record: number): void {
    if (this.#closed || this.#state === 'down') return;
    const gone = new Set(seqs);
    // A document still queued here would otherwise be indexed after its delete.
    this.#queue = this.#queue.filter((doc) => !gone.has(doc.seq));
    this.#send();
    this.#worker?.postMessage({ type: 'delete', seqs: [...seqs], record });
  }

  /** The latest pruned record the index has applied (as of the indexer's last answer); the store may drop records up to it. */
  get prunedMark(): number {
    return this.#prunedMark;
  }

  /** Resolves once everything added so far is in the index. */
  async flushed(): Promise<number> {
    if (this.#closed) throw new ParleyError('HUB_CLOSED', 'The hub is closed; open it again to search.');
    await this.started();
    if (this.#catchingUp) {
      try {
        await this.#catchingUp;
      } catch {
        // A failed catch-up is its caller's to report (catchUp rejects for it); the state says below whether search still works.
      }
    }
    if (this.#state === 'down') throw this.#unavailable();
    this.#send();
    return this.#flushWorker();
  }

  /**
   * Feeds the index what the log holds beyond it, a page at a time, waiting
   * for each page, then goes live with what was added meanwhile.
   */
  catchUp(): Promise<void> {
    if (this.#state === 'idle') return this.started();
    if (this.#state === 'down') return Promise.reject(this.#unavailable());
    this.#catchingUp ??= this.#runCatchUp().finally(() => (this.#catchingUp = undefined));
    return this.#catchingUp;
  }

  /** Ranked seqs of matching documents visible to the viewer. `match` is an FTS5 query. */
  async search(match: string, scope: SearchScope, limit: number): Promise<number[]> {
    await this.flushed();
    return this.#reader.seqs(match, scope, limit);
  }

  /** @internal Stops the indexer thread abruptly, as a crash would (tests). */
  async simulateCrash(): Promise<void> {
    await this.started();
    const worker = this.#worker;
    if (!worker || this.#exited) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    await worker.terminate();
    await exited;
  }

  /**
   * @internal Makes search.db unable to grow, as a full disk would (SQLite's
   * max_page_count: writes then fail with the very SQLITE_FULL a full disk
   * gives), for this indexer and the ones restarted after it, until called
   * with false ("space was freed"). Tests only.
   */
  simulateDiskFull(full: boolean): void {
    this.#diskFull = full;
    this.#worker?.postMessage({ type: 'disk-full', full });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#send();
    this.#closed = true;
    clearTimeout(this.#startTimer);
    clearTimeout(this.#retryTimer);
    try {
      await Promise.all([this.#recovering, this.#starting]);
    } catch {
      // A restart logs its own failures; closing only waits for it to end.
    }
    this.#reader.close();
    const worker = this.#worker;
    if (this.#exited || !worker) return;
    const exited = new Promise<void>((resolve) => (this.#onClosed = resolve));
    worker.postMessage({ type: 'close' });
    // A worker that does not finish in time is stopped: the index is derived and rebuilt from the log.
    const timer = setTimeout(() => inBackground(worker.terminate(), this.#logger, 'stopping the search indexer that did not close in time'), CLOSE_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  async #runCatchUp(): Promise<void> {
    this.#state = 'catching-up';
    // First the deletes the index missed (a crash between the store's prune and the index's), then the new events.
    await this.#flushWorker();
    for (;;) {
      if (this.#closed) return;
      const records = this.#source.prunedAfter(this.#prunedMark, CATCH_UP_PAGE);
      if (records.length === 0) break;
      for (const record of records) this.#attached().postMessage({ type: 'delete', seqs: record.seqs, record: record.id });
      await this.#flushWorker();
    }
    let after = await this.#flushWorker();
    for (;;) {
      if (this.#closed) return;
      const page = this.#source.docsAfter(after, CATCH_UP_PAGE);
      // Nothing beyond: everything committed so far is handed over, and later documents are queued, in order.
      if (page.last === undefined) break;
      if (page.docs.length > 0) {
        this.#attached().postMessage({ type: 'index', docs: page.docs });
        await this.#flushWorker();
      }
      after = page.last;
    }
    this.#state = 'live';
    this.#send();
  }

  #attach(worker: Worker): void {
    this.#worker = worker;
    this.#exited = false;
    worker.on('message', (message: WorkerMessage) => {
      if (worker === this.#worker) this.#onMessage(message);
    });
    worker.on('error', (error) => this.#fail(worker, error));
    worker.on('exit', (code) => {
      if (worker !== this.#worker) return;
      this.#exited = true;
      if (!this.#closed) this.#fail(worker, new Error(`search indexer exited with code ${code}`));
      this.#onClosed?.();
    });
  }

  /** The worker; only the states that have one (live, catching up) call this. */
  #attached(): Worker {
    if (!this.#worker) throw new Error('the search indexer has not started');
    return this.#worker;
  }

  #flushWorker(): Promise<number> {
    const id = this.#nextId++;
    return new Promise<number>((resolve, reject) => {
      this.#waiters.set(id, { resolve, reject });
      this.#attached().postMessage({ type: 'flush', id });
    });
  }

  #send(): void {
    clearTimeout(this.#scheduled);
    this.#scheduled = undefined;
    if (this.#queue.length === 0 || this.#state !== 'live') return;
    const docs = this.#queue;
    this.#queue = [];
    this.#attached().postMessage({ type: 'index', docs });
  }

  #onMessage(message: WorkerMessage): void {
    if (message.prunedMark !== undefined) this.#prunedMark = Math.max(this.#prunedMark, message.prunedMark);
    if (message.type === 'flushed' && message.id !== undefined) {
      this.#waiters.get(message.id)?.resolve(message.indexed ?? 0);
      this.#waiters.delete(message.id);
    } else if (message.type === 'error') {
      // The batch was rolled back and the watermark stayed below it; the restart catches up from there.
      const error = Object.assign(new Error(message.message ?? 'unknown error'), message.code ? { code: message.code } : {});
      if (this.#worker) this.#fail(this.#worker, error);
    }
  }

  /** Takes the index down and schedules a restart; a failure of a worker already replaced is ignored. */
  #fail(worker: Worker, error: Error): void {
    if (worker !== this.#worker || this.#state === 'down' || this.#closed) return;
    this.#state = 'down';
    this.#failure = error;
    this.#queue = [];
    clearTimeout(this.#scheduled);
    this.#scheduled = undefined;
    this.#logger.error('search indexer stopped; it will be restarted', { error, retryInMs: this.#retryMs });
    for (const waiter of this.#waiters.values()) waiter.reject(this.#unavailable());
    this.#waiters.clear();
    this.#scheduleRestart();
  }

  #scheduleRestart(): void {
    this.#retryTimer = setTimeout(() => {
      this.#recovering = this.#restart().finally(() => (this.#recovering = undefined));
    }, this.#retryMs);
    // A hub that is otherwise done does not stay up for this.
    this.#retryTimer.unref();
    this.#retryMs = Math.min(this.#retryMs * 2, DEFAULT_INDEX_MAX_RETRY_MS);
  }

  /** A new worker on the same file (the first one if `first`), caught up from the log; on failure, another try later. */
  async #restart(first = false): Promise<void> {
    if (this.#closed) return;
    const old = this.#worker;
    if (old && !this.#exited) {
      const exited = new Promise<void>((resolve) => old.once('exit', () => resolve()));
      await old.terminate();
      await exited;
    }
    let worker: Worker;
    try {
      worker = await spawnIndexer(this.file, this.#logger, this.#source, this.#diskFull);
    } catch (error) {
      if (this.#closed) return;
      this.#failure = error as Error;
      this.#logger.error(`search indexer could not be ${first ? 'started' : 'restarted'}; trying again later`, { error, retryInMs: this.#retryMs });
      this.#scheduleRestart();
      return;
    }
    if (this.#closed) {
      await worker.terminate();
      return;
    }
    // The file may have been rebuilt: search through a fresh connection.
    this.#reader.close();
    this.#attach(worker);
    this.#state = 'catching-up';
    try {
      await this.catchUp();
    } catch (error) {
      // A worker failure has already taken the index down and scheduled the next try (#fail ignores a second); anything else is taken down here.
      if (!this.#closed) this.#fail(worker, error as Error);
      return;
    }
    if (this.#closed) return;
    this.#failure = undefined;
    this.#retryMs = DEFAULT_INDEX_RETRY_MS;
    if (!first) this.#logger.info('search indexer restarted and caught up');
  }

  #unavailable(): ParleyError {
    return searchUnavailable(this.file, this.#failure);
  }
}
