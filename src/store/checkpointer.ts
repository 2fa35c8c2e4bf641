import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { DEFAULT_CHECKPOINT_INTERVAL_MS, DEFAULT_CHECKPOINT_THRESHOLD_PAGES, DEFAULT_CHECKPOINT_WRITER_FALLBACK_BYTES, DEFAULT_WAL_SIZE_LIMIT_BYTES } from '../config/defaults.js';

/**
 * The WAL checkpoint, off the posting path. SQLite checkpoints by default
 * inside the COMMIT that takes the WAL past 1000 pages, so one post in a
 * thousand pages waited for pages to be copied and the file synced, and a
 * large prune's commits stalled every post behind them. Here the writer's
 * connection never checkpoints (wal_autocheckpoint=0): a worker thread with a
 * connection of its own runs PASSIVE checkpoints, which never block the
 * writer, after commits (checkpoint-worker.mjs). Once a pass has copied
 * everything, the writer starts the WAL over from its beginning at its next
 * write, and cuts the file back to journal_size_limit: the WAL stays bounded.
 *
 * Should the worker fall behind (the WAL file past `fallbackBytes`), the
 * writer checkpoints itself after its commit (the worker holding off); should it fail, the writer's
 * connection checkpoints as SQLite does by default: slower posts, never an
 * unbounded WAL.
 */
export interface CheckpointerOptions {
  intervalMs?: number;
  /** WAL pages past which the worker checkpoints. */
  thresholdPages?: number;
  fallbackBytes?: number;
  walSizeLimitBytes?: number;
  workerUrl?: URL;
  onFailed?: (error: unknown) => void;
  /** How long stop() waits for the worker to close its connection (default 10 s). */
  closeWaitMs?: number;
}

// Slots of the shared Int32Array, as checkpoint-worker.mjs names them.
const STATE = 0;
const COMMITS = 1;
const STOP = 2;
const PASSES = 3;
const LOG_FRAMES = 4;
const REQUESTED = 6;
const SERVED = 7;
const HELD = 8;
const IN_PASS = 9;
const SLOTS = 10;
const NOT_STARTED = 0;
const RUNNING = 1;
const CANCELLED = 2;
/** The WAL size at which the worker starts: below it, a checkpoint at close is all the store needs. */
const WORKER_START_BYTES = 1024 * 1024;
/** How long close waits by default for the worker to finish its pass and close its connection. */
const CLOSE_WAIT_MS = 10_000;

/** Atomics.waitAsync (Node 16+), not yet in this TypeScript lib. */
interface AtomicsWithWaitAsync {
  waitAsync(array: Int32Array, index: number, value: number, timeoutMs: number): { async: false; value: string } | { async: true; value: Promise<string> };
}

export class Checkpointer {
  readonly #db: Database.Database;
  readonly #file: string;
  readonly #synchronous: string;
  readonly #intervalMs: number;
  readonly #thresholdPages: number;
  readonly #fallbackBytes: number;
  readonly #walFile: string;
  readonly #workerUrl: URL;
  readonly #onFailed: (error: unknown) => void;
  readonly #closeWaitMs: number;
  readonly #slots = new Int32Array(new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT));
  #worker: Worker | undefined;
  #failed = false;
  #stopped = false;
  /** Checkpoints the writer ran itself (the worker behind or failed). */
  writerCheckpoints = 0;

  constructor(db: Database.Database, file: string, synchronous: 'FULL' | 'NORMAL', options: CheckpointerOptions = {}) {
    this.#db = db;
    this.#file = file;
    this.#synchronous = synchronous;
    this.#intervalMs = options.intervalMs ?? DEFAULT_CHECKPOINT_INTERVAL_MS;
    this.#thresholdPages = options.thresholdPages ?? DEFAULT_CHECKPOINT_THRESHOLD_PAGES;
    this.#fallbackBytes = options.fallbackBytes ?? DEFAULT_CHECKPOINT_WRITER_FALLBACK_BYTES;
    this.#walFile = `${file}-wal`;
    // Through its folder's name: the same file from the command's bundle (dist/src/bundle, see scripts/bundle-cli.mjs).
    this.#workerUrl = options.workerUrl ?? new URL('../store/checkpoint-worker.mjs', import.meta.url);
    this.#onFailed = options.onFailed ?? (() => undefined);
    this.#closeWaitMs = options.closeWaitMs ?? CLOSE_WAIT_MS;
    db.pragma('wal_autocheckpoint = 0');
    db.pragma(`journal_size_limit = ${options.walSizeLimitBytes ?? DEFAULT_WAL_SIZE_LIMIT_BYTES}`);
  }

  /**
   * Called after each commit: wakes the worker, started once the WAL is
   * worth a thread (a short-lived or quiet hub never starts one), or
   * checkpoints here when the worker cannot keep up.
   */
  committed(): void {
    if (this.#stopped || this.#failed) return;
    const walBytes = fs.statSync(this.#walFile, { throwIfNoEntry: false })?.size ?? 0;
    if (!this.#worker) {
      if (walBytes < WORKER_START_BYTES) return;
      this.#worker = this.#start();
    }
    if (walBytes > this.#fallbackBytes) this.#checkpointHere(walBytes > 2 * this.#fallbackBytes);
    else if (Atomics.load(this.#slots, HELD) === 1) Atomics.store(this.#slots, HELD, 0);
    Atomics.add(this.#slots, COMMITS, 1);
    Atomics.notify(this.#slots, COMMITS);
  }

  /** Checkpoint passes the worker has made so far. */
  get passes(): number {
    return Atomics.load(this.#slots, PASSES);
  }

  /** WAL pages at the worker's last pass. */
  get walPages(): number {
    return Atomics.load(this.#slots, LOG_FRAMES);
  }

  /** Whether the worker is inside a checkpoint pass now (diagnostics). */
  get inPass(): boolean {
    return Atomics.load(this.#slots, IN_PASS) === 1;
  }

  /** Whether the worker is still running: after stop(), false unless it failed to close its connection in time. */
  get workerRunning(): boolean {
    return this.#worker !== undefined && Atomics.load(this.#slots, STATE) === RUNNING;
  }

  /** Resolves after the worker's next complete pass, made whatever the WAL's size (for tests and diagnostics; nothing waits for it on the write path). */
  async nextPass(): Promise<void> {
    const request = Atomics.add(this.#slots, REQUESTED, 1) + 1;
    if (!this.#stopped && !this.#failed) this.#worker ??= this.#start();
    while (Atomics.load(this.#slots, SERVED) < request && !this.#failed && !this.#stopped) {
      this.committed();
      const seen = this.passes;
      if (Atomics.load(this.#slots, SERVED) >= request) break;
      const wait = (Atomics as unknown as AtomicsWithWaitAsync).waitAsync(this.#slots, PASSES, seen, 1000);
      if (wait.async) await wait.value;
    }
  }

  /** Stops the worker and waits (blocking, briefly) until its connection is closed: the writer's connection is then the only one. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    const worker = this.#worker;
    if (!worker) return;
    // A worker that has not started yet never opens the file.
    if (Atomics.compareExchange(this.#slots, STATE, NOT_STARTED, CANCELLED) !== NOT_STARTED) {
      Atomics.store(this.#slots, STOP, 1);
      Atomics.notify(this.#slots, STOP);
      // A count, not only a wake-up: a worker in a pass now sleeps on COMMITS next, and would miss a bare notify.
      Atomics.add(this.#slots, COMMITS, 1);
      Atomics.notify(this.#slots, COMMITS);
      const deadline = Date.now() + this.#closeWaitMs;
      for (let state = Atomics.load(this.#slots, STATE); state === RUNNING && Date.now() < deadline; state = Atomics.load(this.#slots, STATE)) {
        Atomics.wait(this.#slots, STATE, state, deadline - Date.now());
      }
    }
    worker.terminate().catch((error: unknown) => this.#onFailed(error));
  }

  #start(): Worker {
    const worker = new Worker(this.#workerUrl, {
      workerData: {
        control: this.#slots.buffer,
        file: this.#file,
        synchronous: this.#synchronous,
        intervalMs: this.#intervalMs,
        thresholdPages: this.#thresholdPages,
      },
    });
    worker.on('error', (error) => this.#fail(error));
    worker.on('exit', (code) => {
      if (!this.#stopped) this.#fail(new Error(`the checkpoint worker exited with code ${code}`));
    });
    // It never keeps the process alive: stop() ends it, and the writer's connection checkpoints at close.
    worker.unref();
    return worker;
  }

  #fail(error: unknown): void {
    if (this.#failed || this.#stopped) return;
    this.#failed = true;
    this.#onFailed(error);
    try {
      // SQLite's own checkpoints, inside the commits, from now on.
      this.#db.pragma('wal_autocheckpoint = 1000');
    } catch (pragmaError) {
      this.#onFailed(pragmaError);
    }
  }

  /**
   * A PASSIVE checkpoint finds the worker's pass under way busy and leaves at
   * once; past twice the fallback size, a FULL one waits for that pass to end
   * (the busy timeout): the WAL never grows further than that.
   */
  #checkpointHere(wait: boolean): void {
    try {
      // The worker holds off meanwhile: this checkpoint must catch up, for the WAL to start over.
      Atomics.store(this.#slots, HELD, 1);
      this.#db.pragma(wait ? 'wal_checkpoint(FULL)' : 'wal_checkpoint(PASSIVE)');
      this.writerCheckpoints += 1;
    } catch (error) {
      // The commit itself is done; the next one tries again.
      this.#onFailed(error);
    }
  }
}
