import type { KeyObject } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { DEFAULT_SIGNING_BATCH_MAX, DEFAULT_SIGNING_MAX_IN_FLIGHT, DEFAULT_SIGNING_SEND_DELAY_MS, DEFAULT_SIGNING_WRITE_DELAY_MS } from '../config/defaults.js';
import type { Store } from '../store/store.js';
import type { Logger } from '../util/logger.js';
import { ed25519Sign } from '../trust/ed25519.mjs';

/** One event to sign: where it is stored, whose key signs it, and the exact bytes (src/trust/envelope.ts). */
export interface SigningJob {
  seq: number;
  eventId: string;
  author: string;
  key: KeyObject;
  bytes: Uint8Array;
}

interface WorkerReply {
  batch: number;
  sigs?: Uint8Array;
  error?: string;
}

const SIGNATURE_BYTES = 64;

/** Clears a pending timer; returns undefined for the field that held it. */
function stopped(timer: NodeJS.Timeout | undefined): undefined {
  if (timer) clearTimeout(timer);
  return undefined;
}

/**
 * Signs appended events on a worker thread and stores each signature in a
 * later write, so that a post pays for its encoding but not for its
 * signature: Ed25519 signing costs about as much CPU as the rest of a post,
 * and here it runs on the second core, in batches, while the posting path
 * goes on. Jobs go to the worker in batches, and signatures are written in
 * the next batch that commits anyway (GroupCommit.beforeCommit), so neither
 * costs a message or a commit per event. The event is durable before its
 * signature; what reads signatures (a signed export, later a peer link)
 * first waits for `settled()`.
 *
 * Nothing is lost when the worker is not there: past `maxInFlight` waiting
 * events, or once the worker has failed, events are signed where they are
 * appended; at close, what is still waiting is signed here before the store
 * closes; and after a crash, the hub signs at start what the store holds
 * unsigned after the last recorded `signed_through` (EventSealer.recover).
 */
export class SignaturePipeline {
  readonly #store: Pick<Store, 'events' | 'senders' | 'writes'>;
  readonly #logger: Logger;
  readonly #headSeq: () => number;
  readonly #maxInFlight: number;
  readonly #workerUrl: URL;
  #worker: Worker | undefined;
  #failed = false;
  #closed = false;
  readonly #keysSent = new Set<string>();
  /** Jobs not yet sent to the worker: sent in one message, a little later or once there are enough. */
  #outgoing: SigningJob[] = [];
  #sendTimer: NodeJS.Timeout | undefined;
  /** Batches the worker is signing, oldest first (the worker answers in order). */
  readonly #inFlight = new Map<number, SigningJob[]>();
  #nextBatch = 1;
  /** Signed and not yet written: written in the next batch that commits, or after a short wait. */
  #ready: Array<{ job: SigningJob; sig: Buffer }> = [];
  #writeTimer: NodeJS.Timeout | undefined;
  /** Jobs submitted whose signature is not yet in a write. */
  #waiting = 0;
  /** Signature writes submitted and not yet committed. */
  #writing = 0;
  #settledWaiters: Array<() => void> = [];

  /** `workerUrl` is the signing worker's script (tests give a failing one). */
  constructor(
    deps: { store: Pick<Store, 'events' | 'senders' | 'writes'>; logger: Logger; headSeq: () => number },
    options: { maxInFlight?: number; workerUrl?: URL } = {},
  ) {
    this.#store = deps.store;
    this.#logger = deps.logger;
    this.#headSeq = deps.headSeq;
    this.#maxInFlight = options.maxInFlight ?? DEFAULT_SIGNING_MAX_IN_FLIGHT;
    this.#workerUrl = options.workerUrl ?? new URL('../trust/signing-worker.mjs', import.meta.url);
    deps.store.writes.beforeCommit(() => this.#writeReady());
  }

  /**
   * Takes the job for the worker and returns null, or signs it here and
   * returns the signature (worker failed, too much waiting, or closed): the
   * caller then stores it with the event.
   */
  submit(job: SigningJob): Buffer | null {
    if (this.#failed || this.#closed || this.#waiting >= this.#maxInFlight) return ed25519Sign(job.bytes, job.key);
    this.#outgoing.push(job);
    this.#waiting += 1;
    if (this.#outgoing.length >= DEFAULT_SIGNING_BATCH_MAX) this.#send();
    else this.#sendTimer ??= setTimeout(() => this.#send(), DEFAULT_SIGNING_SEND_DELAY_MS).unref();
    return null;
  }

  /** Resolves once every signature submitted so far is committed in the store (sending and writing at once what waits). */
  settled(): Promise<void> {
    if (this.#waiting === 0 && this.#writing === 0) return Promise.resolve();
    const settled = new Promise<void>((resolve) => this.#settledWaiters.push(resolve));
    this.#send();
    this.#writeReady();
    return settled;
  }

  /**
   * Signs here whatever the worker has not answered and writes it with what
   * is ready (in the open batch, which the caller then commits), then stops
   * the worker.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#signHere();
    this.#writeReady();
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker) await worker.terminate();
  }

  #send(): void {
    this.#sendTimer = stopped(this.#sendTimer);
    const jobs = this.#outgoing;
    if (jobs.length === 0) return;
    this.#outgoing = [];
    const batch = this.#nextBatch++;
    this.#inFlight.set(batch, jobs);
    const worker = this.#workerOrUndefined();
    if (!worker) return; // #onWorkerFailed signed them here
    const keys: Array<[string, KeyObject]> = [];
    const authors: string[] = [];
    const ends: number[] = [];
    let length = 0;
    for (const job of jobs) {
      if (!this.#keysSent.has(job.author)) {
        this.#keysSent.add(job.author);
        keys.push([job.author, job.key]);
      }
      authors.push(job.author);
      length += job.bytes.length;
      ends.push(length);
    }
    // One buffer for the whole batch, moved (not copied) to the worker.
    const bytes = new Uint8Array(length);
    let at = 0;
    for (const job of jobs) {
      bytes.set(job.bytes, at);
      at += job.bytes.length;
    }
    worker.postMessage({ batch, keys, authors, bytes, ends }, [bytes.buffer]);
  }

  #workerOrUndefined(): Worker | undefined {
    if (this.#worker) return this.#worker;
    if (this.#failed) return undefined;
    try {
      const worker = new Worker(this.#workerUrl);
      worker.on('message', (reply: WorkerReply) => this.#onReply(reply));
      worker.on('error', (error) => this.#onWorkerFailed(error));
      worker.on('exit', (code) => {
        if (this.#worker === worker) this.#onWorkerFailed(new Error(`the signing worker exited with code ${code}`));
      });
      // The worker never keeps the process alive on its own: close() or the failure path settles what it holds.
      worker.unref();
      this.#worker = worker;
      return worker;
    } catch (error) {
      this.#onWorkerFailed(error);
      return undefined;
    }
  }

  #onReply(reply: WorkerReply): void {
    const jobs = this.#inFlight.get(reply.batch);
    if (!jobs) return; // signed here already (close or failure)
    this.#inFlight.delete(reply.batch);
    if (reply.sigs && reply.sigs.length === jobs.length * SIGNATURE_BYTES) {
      const all = Buffer.from(reply.sigs.buffer, reply.sigs.byteOffset, reply.sigs.length);
      jobs.forEach((job, i) => this.#ready.push({ job, sig: all.subarray(i * SIGNATURE_BYTES, (i + 1) * SIGNATURE_BYTES) }));
    } else {
      this.#logger.error('the signing worker could not sign a batch; it is signed on the main thread', { error: reply.error, events: jobs.length });
      for (const job of jobs) this.#ready.push({ job, sig: ed25519Sign(job.bytes, job.key) });
    }
    if (this.#settledWaiters.length > 0) this.#writeReady();
    else this.#writeTimer ??= setTimeout(() => this.#writeReady(), DEFAULT_SIGNING_WRITE_DELAY_MS).unref();
  }

  #onWorkerFailed(error: unknown): void {
    if (this.#failed || this.#closed) return;
    this.#failed = true;
    this.#worker = undefined;
    this.#logger.error('the signing worker failed: events are signed on the main thread from now on', { error });
    this.#signHere();
    this.#writeReady();
  }

  /** Signs every job the worker has not answered on this thread. */
  #signHere(): void {
    this.#sendTimer = stopped(this.#sendTimer);
    const jobs = [...[...this.#inFlight.values()].flat(), ...this.#outgoing];
    this.#inFlight.clear();
    this.#outgoing = [];
    for (const job of jobs) this.#ready.push({ job, sig: ed25519Sign(job.bytes, job.key) });
  }

  /** Writes the ready signatures, with the seq below which all is signed; joins the open batch if there is one. */
  #writeReady(): void {
    this.#writeTimer = stopped(this.#writeTimer);
    const ready = this.#ready;
    if (ready.length === 0) return;
    this.#ready = [];
    this.#waiting -= ready.length;
    this.#write(ready, true);
  }

  #write(ready: Array<{ job: SigningJob; sig: Buffer }>, retry: boolean): void {
    this.#writing += 1;
    let result;
    try {
      result = this.#store.writes.write(() => {
        for (const { job, sig } of ready) this.#store.events.setSig(job.seq, job.eventId, sig);
        this.#store.senders.setSignedThrough(this.#lowestUnsigned() - 1);
      });
    } catch (error) {
      this.#writeDone();
      this.#logger.error('could not store signatures; they are made again when the hub next starts', { error, events: ready.length });
      return;
    }
    result.committed.then(
      () => this.#writeDone(),
      (error: unknown) => {
        // The batch was rolled back for another write's failure: write them again once.
        if (retry) this.#write(ready, false);
        else this.#logger.error('could not store signatures; they are made again when the hub next starts', { error, events: ready.length });
        this.#writeDone();
      },
    );
  }

  /** The lowest seq that may still be without its stored signature (the head + 1 when none is waiting). */
  #lowestUnsigned(): number {
    let lowest = this.#headSeq() + 1;
    for (const jobs of this.#inFlight.values()) {
      if (jobs[0] && jobs[0].seq < lowest) lowest = jobs[0].seq;
    }
    for (const pending of [this.#ready[0]?.job, this.#outgoing[0]]) {
      if (pending && pending.seq < lowest) lowest = pending.seq;
    }
    return lowest;
  }

  #writeDone(): void {
    this.#writing -= 1;
    if (this.#waiting === 0 && this.#writing === 0) {
      const waiters = this.#settledWaiters;
      this.#settledWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }
}
