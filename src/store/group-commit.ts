import type Database from 'better-sqlite3';
import { ParleyError } from '../errors/parley-error.js';

/**
 * Group commit. Writes run at once, inside one open transaction that commits
 * when the current turn of the event loop ends; every write submitted in that
 * turn shares one commit (and, with synchronous=FULL, one fsync). A write's
 * `committed` promise resolves only after its COMMIT, and its after-commit
 * callbacks (live publication) run only then, so nobody is told of an event
 * that could still be lost.
 *
 * Writes have no savepoints of their own: a savepoint per write makes FTS5
 * flush its index at every release and halves throughput. Callers validate
 * before they write, so a write that still throws is exceptional (a bug, a
 * full disk): it rolls back the whole open batch, every other write of that
 * batch is rejected (none was acknowledged yet), and `onBatchFailed` lets the
 * owner reload its caches from disk. A failing COMMIT does the same.
 */
export interface WriteResult<T> {
  value: T;
  committed: Promise<void>;
}

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class GroupCommit {
  private open = false;
  private waiters: Waiter[] = [];
  private afterCommit: Array<() => void> = [];
  private readonly beforeCommitHooks: Array<() => void> = [];
  private readonly batchEndHooks: Array<(committed: boolean) => void> = [];
  private closed = false;
  private scheduled: NodeJS.Immediate | undefined;
  private readonly begin: Database.Statement;
  private readonly commit: Database.Statement;
  private readonly rollback: Database.Statement;
  /** Batches committed and writes in them (for diagnostics and the benchmark). */
  readonly stats = { batches: 0, writes: 0 };

  constructor(
    private readonly db: Database.Database,
    private readonly onBatchFailed: (error: unknown) => void = () => undefined,
    private readonly onCallbackFailed: (error: unknown) => void = () => undefined,
    /** Told after each commit (the WAL checkpointer), before the writes' callbacks run. */
    private readonly onCommitted: () => void = () => undefined,
  ) {
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.commit = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
  }

  /**
   * Runs `fn` now, inside the open batch. `onCommit` runs after the batch
   * commits, in submission order.
   */
  write<T>(fn: () => T, onCommit?: (value: T) => void): WriteResult<T> {
    if (this.closed) throw new ParleyError('HUB_CLOSED', 'The hub is shutting down; retry against the running hub.');
    if (!this.open) {
      this.begin.run();
      this.open = true;
      this.scheduled = setImmediate(() => this.flush());
    }
    let value: T;
    try {
      value = fn();
    } catch (error) {
      this.abort(error);
      throw error;
    }
    if (onCommit) this.afterCommit.push(() => onCommit(value));
    const committed = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    return { value, committed };
  }

  /**
   * Runs `hook` just before each batch commits, while it is still open: a
   * write the hook makes joins that batch, so late writes (signatures made
   * after their events) ride on a commit that happens anyway instead of
   * paying for one of their own.
   */
  beforeCommit(hook: () => void): void {
    this.beforeCommitHooks.push(hook);
  }

  /** Runs `hook` as each batch ends: committed (true) or rolled back (false), before its writes settle. */
  onBatchEnd(hook: (committed: boolean) => void): void {
    this.batchEndHooks.push(hook);
  }

  private batchEnded(committed: boolean): void {
    for (const hook of this.batchEndHooks) {
      try {
        hook(committed);
      } catch (error) {
        this.onCallbackFailed(error);
      }
    }
  }

  /** Rolls back the open batch after a failed write and rejects its other writes. */
  private abort(cause: unknown): void {
    if (this.scheduled) {
      clearImmediate(this.scheduled);
      this.scheduled = undefined;
    }
    const waiters = this.waiters;
    this.waiters = [];
    this.afterCommit = [];
    this.open = false;
    const failure = new ParleyError('INTERNAL', 'Another write of the same batch failed, so this one was rolled back before it was stored; retry it.', {
      cause,
    });
    try {
      if (this.db.inTransaction) this.rollback.run();
    } finally {
      this.batchEnded(false);
      // Settle every write first, whatever the owner's reload does.
      for (const waiter of waiters) waiter.reject(failure);
      this.batchFailed(cause);
    }
  }

  private batchFailed(cause: unknown): void {
    try {
      this.onBatchFailed(cause);
    } catch (error) {
      this.onCallbackFailed(error);
    }
  }

  /** Commits the open batch now. Safe to call when nothing is open. */
  flush(): void {
    if (this.scheduled) {
      clearImmediate(this.scheduled);
      this.scheduled = undefined;
    }
    if (!this.open) return;
    for (const hook of this.beforeCommitHooks) {
      try {
        hook();
      } catch (error) {
        this.onCallbackFailed(error);
      }
    }
    // A hook's write that threw rolled the batch back (abort) and settled its writes.
    if (!this.open) return;
    const waiters = this.waiters;
    const afterCommit = this.afterCommit;
    this.waiters = [];
    this.afterCommit = [];
    this.open = false;
    try {
      this.commit.run();
    } catch (error) {
      const failure = new ParleyError('INTERNAL', `The store could not commit: ${(error as Error).message}. Nothing of this write was kept; retry.`, {
        cause: error,
      });
      try {
        if (this.db.inTransaction) this.rollback.run();
      } catch (rollbackError) {
        this.onCallbackFailed(rollbackError);
      }
      this.batchEnded(false);
      for (const waiter of waiters) waiter.reject(failure);
      this.batchFailed(error);
      return;
    }
    try {
      this.onCommitted();
    } catch (error) {
      this.onCallbackFailed(error);
    }
    this.batchEnded(true);
    if (waiters.length > 0) this.stats.batches += 1;
    this.stats.writes += waiters.length;
    for (const waiter of waiters) waiter.resolve();
    for (const callback of afterCommit) {
      try {
        callback();
      } catch (error) {
        // The data is committed; a failing observer must not stop the others.
        this.onCallbackFailed(error);
      }
    }
  }

  get pending(): number {
    return this.waiters.length;
  }

  close(): void {
    this.flush();
    this.closed = true;
  }
}
