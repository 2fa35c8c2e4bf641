import { Worker } from 'node:worker_threads';
import type { Logger } from '../util/logger.js';
import { ed25519VerifyRaw } from '../trust/ed25519.mjs';

/** One signature to check: the signed bytes, the signer's raw key, the signature. */
export interface SignatureCheck {
  bytes: Uint8Array;
  key: Uint8Array;
  sig: Uint8Array;
}

/** Pages of fewer events are checked on the main thread (a linked hub sends single events while it keeps up). */
const WORKER_MIN_CHECKS = 16;

interface WorkerReply {
  batch: number;
  ok?: Uint8Array;
  error?: string;
}

interface Pending {
  checks: readonly SignatureCheck[];
  resolve: (ok: boolean[]) => void;
}

/**
 * Checks the signatures of a linked hub's page on a worker thread, so that
 * the hub's main thread stores one page while the next one's signatures are
 * checked on the second core (a check costs as much CPU as the rest of taking
 * an event in). A check only says which signatures hold: what it passes is
 * still taken through the gate, and what it fails is checked there again and
 * refused, counted. Without the worker (it failed, or the checker is closed)
 * the checks run on the main thread; nothing waits on a worker that is gone.
 */
export class SignatureChecks {
  readonly #logger: Logger;
  readonly #workerUrl: URL;
  #worker: Worker | undefined;
  #failed = false;
  #closed = false;
  #nextBatch = 0;
  readonly #pending = new Map<number, Pending>();

  constructor(logger: Logger, workerUrl: URL = new URL('../trust/verify-worker.mjs', import.meta.url)) {
    this.#logger = logger;
    this.#workerUrl = workerUrl;
  }

  /**
   * Whether each signature holds, in order. A few are checked here: the trip
   * to the worker would cost them more time than it saves. So is a page
   * marked `first` (the first of a catch-up): nothing is stored before it, and
   * behind the pages read after it on the worker it would wait for them.
   */
  check(checks: readonly SignatureCheck[], first = false): Promise<boolean[]> {
    const worker = checks.length >= WORKER_MIN_CHECKS && !first ? this.#workerNow() : undefined;
    if (!worker) return Promise.resolve(checkHere(checks));
    const batch = this.#nextBatch++;
    const ends: number[] = [];
    let length = 0;
    for (const c of checks) ends.push((length += c.bytes.length));
    const bytes = new Uint8Array(length);
    const keys = new Uint8Array(checks.length * 32);
    const sigs = new Uint8Array(checks.length * 64);
    checks.forEach((c, i) => {
      bytes.set(c.bytes, i === 0 ? 0 : ends[i - 1]);
      if (c.key.length === 32) keys.set(c.key, i * 32);
      if (c.sig.length === 64) sigs.set(c.sig, i * 64);
    });
    return new Promise((resolve) => {
      this.#pending.set(batch, { checks, resolve });
      worker.postMessage({ batch, keys, sigs, bytes, ends }, [bytes.buffer, keys.buffer, sigs.buffer]);
    });
  }

  /** Starts the worker ahead of the first long page (its start takes tens of milliseconds). */
  warm(): void {
    this.#workerNow();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#settleHere();
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker) await worker.terminate();
  }

  #workerNow(): Worker | undefined {
    if (this.#worker || this.#failed || this.#closed) return this.#worker;
    try {
      const worker = new Worker(this.#workerUrl);
      worker.on('message', (reply: WorkerReply) => this.#onReply(reply));
      worker.on('error', (error) => this.#onFailed(error));
      worker.on('exit', (code) => {
        if (this.#worker === worker) this.#onFailed(new Error(`the signature-check worker exited with code ${code}`));
      });
      // It never keeps the process alive: close() or the failure path settles what it holds.
      worker.unref();
      this.#worker = worker;
      return worker;
    } catch (error) {
      this.#onFailed(error);
      return undefined;
    }
  }

  #onReply(reply: WorkerReply): void {
    const pending = this.#pending.get(reply.batch);
    if (!pending) return;
    this.#pending.delete(reply.batch);
    if (reply.ok && reply.ok.length === pending.checks.length) pending.resolve([...reply.ok].map((flag) => flag === 1));
    else {
      this.#logger.error('the signature-check worker could not check a page; it is checked on the main thread', { error: reply.error });
      pending.resolve(checkHere(pending.checks));
    }
  }

  #onFailed(error: unknown): void {
    if (!this.#failed) this.#logger.error('the signature-check worker failed; signatures are checked on the main thread from now on', { error });
    this.#failed = true;
    this.#worker = undefined;
    this.#settleHere();
  }

  /** What waits on the worker, checked here instead. */
  #settleHere(): void {
    for (const [batch, pending] of this.#pending) {
      this.#pending.delete(batch);
      pending.resolve(checkHere(pending.checks));
    }
  }
}

function checkHere(checks: readonly SignatureCheck[]): boolean[] {
  return checks.map((c) => ed25519VerifyRaw(c.bytes, c.key, c.sig));
}
