import crypto from 'node:crypto';
import { SENDER_EPOCH_BYTES } from '../schema/envelope.js';
import { CROSSING_EVENT_TYPES } from '../schema/event.js';
import { ParleyError } from '../errors/parley-error.js';
import type { EventRow } from '../store/event-log.js';
import { signedFieldsOfRow } from '../store/signed-fields.js';
import { eventSigningBytes, signEvent } from '../trust/envelope.js';
import type { Config } from '../config/schema.js';
import type { Store } from '../store/store.js';
import type { KeyRing } from '../trust/key-ring.js';
import type { Logger } from '../util/logger.js';
import type { AccessResolver } from './access-resolver.js';
import type { HubState } from './state.js';
import { rawKeyOf } from './participant-key.js';
import { SignaturePipeline } from './signature-pipeline.js';
import type { SignedElsewhere } from './event-draft.js';

/**
 * Signs every event as it is appended, with its author's custodial key (see
 * src/trust/envelope.ts for what is signed). It gives each event the author's
 * next sender_seq in the thread (counted here and kept in the same batch, so a
 * seq is never given twice even when a batch is rolled back: a gap is harmless,
 * a reused seq is not) and the author's epoch.
 *
 * The signing bytes are made inside the writer's turn; the signature itself
 * is made on a worker thread and stored just after (src/hub/signature-pipeline.ts).
 * Sealing never throws in the writer's turn: an author whose key file cannot
 * be read gets its event stored unsigned, and the error is logged (once per
 * author) for the operator; `parley verify` then names the unsigned event.
 */
/** What the sealer uses of the hub: these components only. */
export interface SealerComponents {
  store: Store;
  keys: KeyRing;
  state: HubState;
  config: Config;
  logger: Logger;
  access: Pick<AccessResolver, 'rosterVersion'>;
}

export class EventSealer {
  readonly #ctx: SealerComponents;
  readonly #lastSeq = new Map<string, number>();
  /** The last sender_seq given to an event that crosses, per author and thread (null: none in this epoch, or not known). */
  readonly #lastCrossing = new Map<string, number | null>();
  /**
   * The last crossing seq, as the last commit left it, of each author and
   * thread the open batch changed: put back if the batch rolls back, so that
   * the next event's prev_seq is not a seq that was never stored (a false gap
   * on the linked hubs).
   */
  readonly #crossingBefore = new Map<string, number | null>();
  /** Authors and threads whose last sender_seq is not yet stored: stored once per batch, just before it commits. */
  readonly #unstored = new Map<string, { participantId: string; threadId: string }>();
  readonly #epochs = new Map<string, Buffer>();
  readonly #unsignable = new Set<string>();
  readonly #sign: boolean;
  readonly #pipeline: SignaturePipeline;

  constructor(ctx: SealerComponents, options: { sign: boolean } = { sign: true }) {
    this.#ctx = ctx;
    this.#sign = options.sign;
    this.#pipeline = new SignaturePipeline({ store: ctx.store, logger: ctx.logger, headSeq: () => ctx.state.nextSeq - 1 });
    ctx.store.writes.beforeCommit(() => this.#storeSenderSeqs());
    ctx.store.writes.onBatchEnd((committed) => {
      if (!committed) for (const [key, crossing] of this.#crossingBefore) this.#lastCrossing.set(key, crossing);
      this.#crossingBefore.clear();
    });
  }

  /**
   * Signs what a hub that stopped without closing left unsigned (its
   * signatures were still on the worker) and records that all is signed up
   * to the head. Run once at start, before any write.
   */
  recover(): void {
    const { store } = this.#ctx;
    const head = this.#ctx.state.nextSeq - 1;
    const through = store.senders.signedThrough();
    let signed = 0;
    store.writes.write(() => {
      if (this.#sign && through !== undefined && through < head) {
        for (const row of store.events.unsignedAfter(through)) {
          if (!this.#ctx.keys.holds(row.from_id)) continue;
          const sig = this.#signNow(row);
          if (sig && store.events.setSig(row.seq, row.id, sig)) signed += 1;
        }
      }
      store.senders.setSignedThrough(head);
    });
    store.writes.flush();
    if (signed > 0) this.#ctx.logger.warn('signed events the hub had stored without their signature when it last stopped', { events: signed });
  }

  /** Resolves once every event appended so far has its signature stored (a signed export waits for it). */
  settled(): Promise<void> {
    return this.#pipeline.settled();
  }

  /** Signs and writes what is still waiting for the worker (the caller commits it), and stops the worker. */
  close(): Promise<void> {
    return this.#pipeline.close();
  }

  /** Fills the row's signature columns with what its author signed elsewhere (src/hub/ingest.ts), as they are. */
  keep(row: EventRow, signed: SignedElsewhere): void {
    row.signed_ts = signed.ts;
    row.signed_meta = signed.meta === null ? null : JSON.stringify(signed.meta);
    row.signed_thread = signed.thread !== undefined && signed.thread !== row.thread_id ? signed.thread : null;
    row.prev_seq = signed.prev ?? null;
    row.ttl_secs = signed.ttl_secs;
    row.sender_seq = signed.sender_seq;
    row.sender_epoch = signed.sender_epoch;
    row.roster_version = this.#ctx.access.rosterVersion;
    row.sig = signed.sig;
  }

  /** Fills the row's signature columns (inside a write). */
  seal(row: EventRow): void {
    const senderSeq = this.#nextSenderSeq(row.from_id, row.thread_id, CROSSING_EVENT_TYPES.has(row.type), row);
    const epoch = this.#epochOf(row.from_id);
    row.ttl_secs = this.#ctx.config.trust.ttlSecs;
    row.sender_seq = senderSeq;
    row.sender_epoch = epoch;
    // The roster the event was written under (null: local mode), so an export can check its author's role then.
    row.roster_version = this.#ctx.access.rosterVersion;
    row.sig = null;
    if (!this.#sign || this.#unsignable.has(row.from_id)) return;
    try {
      const key = this.#ctx.keys.participant(row.from_id).privateKey;
      const bytes = eventSigningBytes(signedFieldsOfRow(row, (id) => this.#rawKeyOf(id)));
      row.sig = this.#pipeline.submit({ seq: row.seq, eventId: row.id, author: row.from_id, key, bytes });
    } catch (error) {
      // A lost key is reported once; anything else (it cannot happen for fields read back from JSON) per event.
      const lostKey = error instanceof ParleyError && error.code === 'KEY_FILE';
      if (lostKey) this.#unsignable.add(row.from_id);
      const message = lostKey ? "cannot read this author's key: its events are stored unsigned until its key file is restored and the hub restarted" : 'an event could not be signed and is stored unsigned';
      this.#ctx.logger.error(message, { participant: row.from_id, event: row.id, error });
    }
  }

  /** The signature of a stored row, made here (null, logged, when it cannot be made). */
  #signNow(row: EventRow): Buffer | null {
    try {
      return signEvent(this.#ctx.keys.participant(row.from_id).privateKey, signedFieldsOfRow(row, (id) => this.#rawKeyOf(id)));
    } catch (error) {
      this.#ctx.logger.error('an event left unsigned could not be signed', { participant: row.from_id, event: row.id, error });
      return null;
    }
  }

  /**
   * The author's next sender_seq in the thread; an event that crosses to
   * linked hubs also gets the seq of the author's previous one that crossed
   * (its prev_seq), so that a hub receiving them tells a gap from the seqs of
   * events that never leave this hub.
   */
  #nextSenderSeq(participantId: string, threadId: string, crossing: boolean, row: EventRow): number {
    const key = `${participantId}\n${threadId}`;
    let last = this.#lastSeq.get(key);
    if (last === undefined) {
      const stored = this.#ctx.store.senders.counters(participantId, threadId);
      last = stored.seq;
      this.#lastCrossing.set(key, stored.crossing);
    }
    const next = last + 1;
    this.#lastSeq.set(key, next);
    if (crossing) {
      row.prev_seq = this.#lastCrossing.get(key) ?? null;
      if (!this.#crossingBefore.has(key)) this.#crossingBefore.set(key, row.prev_seq);
      this.#lastCrossing.set(key, next);
    }
    if (!this.#unstored.has(key)) this.#unstored.set(key, { participantId, threadId });
    return next;
  }

  /**
   * Stores each author's last sender_seq in the batch that holds its events.
   * Kept until stored: a batch rolled back before its commit leaves them for
   * the next one, and the counters here only go up (a gap is harmless).
   */
  #storeSenderSeqs(): void {
    for (const [key, { participantId, threadId }] of this.#unstored) {
      this.#ctx.store.senders.setLastSeq(participantId, threadId, this.#lastSeq.get(key) ?? 0, this.#lastCrossing.get(key) ?? null);
    }
    this.#unstored.clear();
  }

  #epochOf(participantId: string): Buffer {
    let epoch = this.#epochs.get(participantId) ?? this.#ctx.store.senders.epochOf(participantId);
    if (!epoch) {
      epoch = crypto.randomBytes(SENDER_EPOCH_BYTES);
      this.#ctx.store.senders.setEpoch(participantId, epoch);
    }
    this.#epochs.set(participantId, epoch);
    return epoch;
  }

  #rawKeyOf(participantId: string): Buffer {
    return rawKeyOf(this.#ctx.state.participant(participantId));
  }
}
