import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { ParleyError } from '../errors/parley-error.js';
import { createPrivateFile } from '../store/private-home.js';
import type { Logger } from '../util/logger.js';

/**
 * Full-text search, kept in a file of its own (`search.db`) and written by a
 * worker thread, so indexing never slows the posting path. The index is
 * derived from the log: it records the highest seq it holds and the hub feeds
 * it whatever lies above that at start. Searching first waits until the
 * worker has indexed everything handed to it, so a search sees every
 * acknowledged post (read-your-writes).
 */
export interface SearchDoc {
  seq: number;
  session: string;
  thread: string;
  /** For DMs, the participant ids that may see it; absent when the whole session may. */
  audience?: string;
  text: string;
}

export interface SearchScope {
  sessionId: string;
  viewerId: string;
  threadId?: string;
}

export const DEFAULT_INDEX_BATCH = 2000;
export const DEFAULT_INDEX_DELAY_MS = 20;
const CLOSE_TIMEOUT_MS = 10_000;

interface WorkerMessage {
  type: 'ready' | 'flushed' | 'closed' | 'error';
  id?: number;
  indexed?: number;
  message?: string;
}

export class SearchIndex {
  readonly #worker: Worker;
  readonly #logger: Logger;
  readonly #waiters = new Map<number, { resolve: (indexed: number) => void; reject: (error: unknown) => void }>();
  #reader: Database.Database | undefined;
  #queue: SearchDoc[] = [];
  #scheduled: NodeJS.Timeout | undefined;
  #nextId = 1;
  #closed = false;
  #exited = false;
  #failure: Error | undefined;
  #onClosed: (() => void) | undefined;
  #search: { session: Database.Statement; thread: Database.Statement } | undefined;

  private constructor(
    readonly file: string,
    worker: Worker,
    logger: Logger,
    /** The highest seq the index held when it started. */
    readonly indexedAtStart: number,
  ) {
    this.#worker = worker;
    this.#logger = logger;
    worker.on('message', (message: WorkerMessage) => this.#onMessage(message));
    worker.on('error', (error) => this.#fail(error));
    worker.on('exit', (code) => {
      this.#exited = true;
      if (!this.#closed) this.#fail(new Error(`search indexer exited with code ${code}`));
      this.#onClosed?.();
    });
  }

  /**
   * Starts the indexer for the store `storeId` whose log ends at `maxSeq`. An
   * index made for another store, or holding seqs the store does not have
   * (the store lost its last commits), is emptied and rebuilt from the log.
   */
  static async start(file: string, logger: Logger, store: { storeId: string; maxSeq: number }): Promise<SearchIndex> {
    try {
      return await SearchIndex.#startOnce(file, logger, store);
    } catch (error) {
      // The index is derived from the log: an unreadable one is thrown away and rebuilt.
      logger.warn('search index unreadable; rebuilding it from the log', { error: String((error as Error)?.message ?? error) });
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
      return SearchIndex.#startOnce(file, logger, store);
    }
  }

  static async #startOnce(file: string, logger: Logger, store: { storeId: string; maxSeq: number }): Promise<SearchIndex> {
    createPrivateFile(file);
    const worker = new Worker(new URL('./search-worker.mjs', import.meta.url), {
      workerData: { file, batchSize: DEFAULT_INDEX_BATCH, maxDelayMs: DEFAULT_INDEX_DELAY_MS, storeId: store.storeId, maxSeq: store.maxSeq },
    });
    const indexed = await new Promise<number>((resolve, reject) => {
      const onMessage = (message: WorkerMessage): void => {
        if (message.type !== 'ready') return;
        worker.off('message', onMessage);
        worker.off('error', reject);
        resolve(message.indexed ?? 0);
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`search indexer exited with code ${code} while starting`)));
    });
    return new SearchIndex(file, worker, logger, indexed);
  }

  /** Queues a committed event for indexing; documents go to the worker in batches. */
  add(doc: SearchDoc): void {
    // A failed indexer takes nothing more: the next start rebuilds from the log.
    if (this.#closed || this.#failure) return;
    this.#queue.push(doc);
    // Batched on this side too: a message per interval, not per commit, costs the posting thread less.
    if (this.#queue.length >= DEFAULT_INDEX_BATCH) this.#send();
    else this.#scheduled ??= setTimeout(() => this.#send(), DEFAULT_INDEX_DELAY_MS);
  }

  /** Resolves once everything added so far is in the index. */
  async flushed(): Promise<number> {
    if (this.#failure) throw this.#unavailable();
    if (this.#closed) throw new ParleyError('HUB_CLOSED', 'The hub is closed; open it again to search.');
    this.#send();
    const id = this.#nextId++;
    return new Promise<number>((resolve, reject) => {
      this.#waiters.set(id, { resolve, reject });
      this.#worker.postMessage({ type: 'flush', id });
    });
  }

  /** Ranked seqs of matching documents visible to the viewer. `match` is an FTS5 query. */
  async search(match: string, scope: SearchScope, limit: number): Promise<number[]> {
    await this.flushed();
    const statements = this.#statements();
    const rows =
      scope.threadId === undefined
        ? statements.session.all(match, scope.sessionId, scope.viewerId, limit)
        : statements.thread.all(match, scope.threadId, scope.viewerId, limit);
    return (rows as Array<{ seq: number }>).map((r) => r.seq);
  }

  /** @internal Stops the indexer thread abruptly, as a crash would (tests). */
  async simulateCrash(): Promise<void> {
    const exited = new Promise<void>((resolve) => this.#worker.once('exit', () => resolve()));
    await this.#worker.terminate();
    await exited;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#send();
    this.#closed = true;
    this.#reader?.close();
    if (this.#exited) return;
    const exited = new Promise<void>((resolve) => (this.#onClosed = resolve));
    this.#worker.postMessage({ type: 'close' });
    // A worker that does not finish in time is stopped: the index is derived and rebuilt from the log.
    const timer = setTimeout(() => void this.#worker.terminate(), CLOSE_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  #send(): void {
    clearTimeout(this.#scheduled);
    this.#scheduled = undefined;
    if (this.#queue.length === 0 || this.#failure) return;
    const docs = this.#queue;
    this.#queue = [];
    this.#worker.postMessage({ type: 'index', docs });
  }

  #statements(): { session: Database.Statement; thread: Database.Statement } {
    if (!this.#search) {
      this.#reader = new Database(this.file, { readonly: true, fileMustExist: true });
      const visible = '(d.audience IS NULL OR instr(d.audience, ?) > 0)';
      this.#search = {
        session: this.#reader.prepare(
          `SELECT d.seq FROM docs_fts f JOIN docs d ON d.seq = f.rowid
           WHERE docs_fts MATCH ? AND d.session_id = ? AND ${visible} ORDER BY f.rank LIMIT ?`,
        ),
        thread: this.#reader.prepare(
          `SELECT d.seq FROM docs_fts f JOIN docs d ON d.seq = f.rowid
           WHERE docs_fts MATCH ? AND d.thread_id = ? AND ${visible} ORDER BY f.rank LIMIT ?`,
        ),
      };
    }
    return this.#search;
  }

  #onMessage(message: WorkerMessage): void {
    if (message.type === 'flushed' && message.id !== undefined) {
      this.#waiters.get(message.id)?.resolve(message.indexed ?? 0);
      this.#waiters.delete(message.id);
    } else if (message.type === 'error') {
      // The batch was rolled back and the watermark stayed below it; stop here so nothing is skipped.
      this.#fail(new Error(`search indexer failed to index a batch: ${message.message ?? 'unknown error'}`));
    }
  }

  #fail(error: Error): void {
    if (this.#failure) return;
    this.#failure = error;
    this.#queue = [];
    this.#logger.error('search indexer stopped', { error });
    for (const waiter of this.#waiters.values()) waiter.reject(this.#unavailable());
    this.#waiters.clear();
  }

  #unavailable(): ParleyError {
    return new ParleyError('INTERNAL', `Search is unavailable: ${this.#failure?.message ?? 'indexer stopped'}. Restart the hub to rebuild the index.`);
  }
}
