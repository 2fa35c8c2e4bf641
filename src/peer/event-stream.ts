/**
 * The fan-out over a link (`/parley/events/1`, frames in event-frames.ts).
 * Each hub opens one stream to each linked hub and sends it, page by page,
 * what its own log holds for it after that hub's cursor; the cursor moves
 * only when the peer acknowledges a page it has durably stored. There is no
 * queue to lose: a peer that was away, slow or cut off is sent, in order,
 * what it missed when it is back, and posting here never waits for a peer.
 */

import type { Connection, Stream } from '@libp2p/interface';
import { lpStream } from '@libp2p/utils';
import type { PeerSync, PeerTaken, PreparedPage } from '../hub/index.js';
import type { DropReason } from '../schema/peer-link.js';
import { inBackground, settled } from '../util/background.js';
import type { Logger } from '../util/logger.js';
import { BadFrame, decodeAck, decodeEvents, encodeAck, encodeEvents, EVENTS_PROTOCOL, MAX_EVENTS_FRAME_BYTES, MAX_EVENTS_PER_FRAME, type EventsFrame } from './event-frames.js';
import { keyOfPeer } from './peer-node.js';

/** A peer that has not acknowledged a page within this is cut off (its stream reset); it resumes from its cursor. */
export const DEFAULT_ACK_TIMEOUT_MS = 30_000;
/** A page is cut at about this many bytes of events (it always holds one). */
const PAGE_BYTES = 1024 * 1024;
/** Pages sent and not yet acknowledged, at most. */
const PAGES_IN_FLIGHT = 4;
/** After a failed stream on a link still up, the next one opens after this. */
const RESEND_DELAY_MS = 1000;

/** What the event streams use of the links. */
export interface EventLinkHooks {
  sync: PeerSync;
  logger: Logger;
  /** Counts a refused event or frame from the hub holding `key`. */
  countDrop(key: string, reason: DropReason): void;
  /** A frame was read from the hub holding `key`. */
  heard(key: string): void;
  /** When a frame was last read from the hub holding `key` (null: never). */
  lastSeen(key: string): number | null;
  /** Resolves once the participants the hub holding `key` hosts are registered; undefined: it is not linked. */
  ready(key: string): Promise<void> | undefined;
  /** Exchanges hellos with the hub holding `key` again (and takes a newer roster it holds); false when none was asked. */
  refresh(key: string): Promise<boolean>;
  ackTimeoutMs: number;
}

/** Sends this hub's events to one linked hub over one connection, until stopped. */
export class EventSender {
  readonly #key: string;
  readonly #connection: Connection;
  readonly #hooks: EventLinkHooks;
  readonly #unlisten: () => void;
  #stopped = false;
  /** A commit came since the last read of the log. */
  #pending = true;
  #wake: (() => void) | undefined;
  /** Wakes the ack reader when a page goes out after none was in flight. */
  #ackWake: (() => void) | undefined;
  #stream: Stream | undefined;

  constructor(key: string, connection: Connection, hooks: EventLinkHooks) {
    this.#key = key;
    this.#connection = connection;
    this.#hooks = hooks;
    this.#unlisten = hooks.sync.onCommitted(() => this.#poke());
    inBackground(this.#run(), hooks.logger, `sending events to peer ${key}`);
  }

  get connection(): Connection {
    return this.#connection;
  }

  stop(): void {
    this.#stopped = true;
    this.#unlisten();
    this.#poke();
    this.#stream?.abort(new Error('the link to this peer ended'));
  }

  #poke(): void {
    this.#pending = true;
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      try {
        await this.#send();
      } catch (error) {
        if (this.#stopped) return;
        this.#hooks.logger.warn('the event stream to a peer failed; it resumes from the peer\'s cursor', { peer: this.#key, error: (error as Error).message });
        this.#stream?.abort(error as Error);
        await new Promise((resolve) => setTimeout(resolve, RESEND_DELAY_MS).unref());
      }
    }
  }

  /**
   * One stream: pages go out as the log grows, up to PAGES_IN_FLIGHT not yet
   * acknowledged (so the peer's commit and this hub's next read overlap); the
   * cursor follows the acks, in order.
   */
  async #send(): Promise<void> {
    const { sync, ackTimeoutMs } = this.#hooks;
    const stream = await this.#connection.newStream(EVENTS_PROTOCOL, { signal: AbortSignal.timeout(ackTimeoutMs) });
    this.#stream = stream;
    const framed = lpStream(stream, { maxDataLength: MAX_EVENTS_FRAME_BYTES });
    /** Read through this; the pages sent and not yet acknowledged, by the seq each was read through. */
    let readThrough = sync.begin(this.#key);
    const unacknowledged: number[] = [];
    let failed: Error | undefined;
    const acks = (async () => {
      while (!this.#stopped) {
        if (unacknowledged.length === 0) {
          await new Promise<void>((resolve) => (this.#ackWake = resolve));
          continue;
        }
        const ack = decodeAck((await framed.read({ signal: AbortSignal.timeout(ackTimeoutMs) })).subarray());
        const expected = unacknowledged.shift();
        if (ack !== expected) throw new BadFrame(`the peer acknowledged ${ack}, not the page sent through ${expected}`);
        // Past what was skipped after it, when no page is left in flight.
        sync.acknowledged(this.#key, unacknowledged.length === 0 ? readThrough : ack);
        this.#poke();
      }
    })().catch((error: unknown) => {
      failed = error as Error;
      this.#poke();
    });
    while (!this.#stopped && !failed) {
      this.#pending = false;
      if (unacknowledged.length < PAGES_IN_FLIGHT) {
        const page = sync.outbound(this.#key, readThrough, MAX_EVENTS_PER_FRAME);
        sync.expired(page.expired);
        if (page.events.length > 0) {
          const frame = cutToSize(page);
          await framed.write(encodeEvents(frame), { signal: AbortSignal.timeout(ackTimeoutMs) });
          readThrough = frame.through;
          unacknowledged.push(frame.through);
          this.#ackWake?.();
          continue;
        }
        if (page.through > readThrough) {
          // Nothing in it for this peer: the cursor passes it (at once, or with the last ack).
          readThrough = page.through;
          if (unacknowledged.length === 0) sync.acknowledged(this.#key, readThrough);
          continue;
        }
      }
      if (!this.#pending && !failed) await new Promise<void>((resolve) => (this.#wake = resolve));
    }
    this.#ackWake?.();
    await acks;
    if (failed && !this.#stopped) throw failed;
    // Stopped: the link is going; a close that fails finds it gone already.
    await settled(stream.close());
  }
}

/** The page cut after about PAGE_BYTES of events; its `through` is then its last event's seq. */
function cutToSize(page: ReturnType<PeerSync['outbound']>): EventsFrame {
  let bytes = 0;
  for (let i = 0; i < page.events.length; i += 1) {
    bytes += page.events[i]!.bytes.length + 100;
    if (bytes > PAGE_BYTES && i > 0) return { through: page.events[i - 1]!.seq, events: page.events.slice(0, i), live: page.live };
  }
  return { through: page.through, events: page.events, live: page.live };
}

/**
 * The key of the linked hub a stream comes from, once the participants it
 * hosts are registered here (what it sends names them); undefined, the stream
 * reset, when no hello was exchanged on its link.
 */
export async function linkedPeerOf(stream: Stream, connection: Connection, hooks: EventLinkHooks): Promise<string | undefined> {
  const key = keyOfPeer(connection.remotePeer);
  const ready = key === undefined ? undefined : hooks.ready(key);
  if (key === undefined || ready === undefined) {
    stream.abort(new Error('no hello was exchanged on this link'));
    return undefined;
  }
  await ready;
  return key;
}

/**
 * Reads what a linked hub sends on one stream: each page taken in, in order,
 * and acknowledged once durable. The next page is read and its signatures
 * checked while one is stored (at most one waits so), so the worker's checks
 * and the main thread's storing overlap. A frame that is malformed, too large
 * or out of order resets the stream (counted as a malformed frame, nothing of
 * it stored); the sender opens another and resends from its cursor.
 */
export async function receiveEvents(stream: Stream, connection: Connection, hooks: EventLinkHooks): Promise<void> {
  const key = await linkedPeerOf(stream, connection, hooks);
  if (key === undefined) return;
  const framed = lpStream(stream, { maxDataLength: MAX_EVENTS_FRAME_BYTES });
  let last = -1;
  /** The page being stored (and acknowledged); false once one could not be: the stream is reset. */
  let storing: Promise<boolean> = Promise.resolve(true);
  while (true) {
    let frame: EventsFrame;
    try {
      frame = decodeEvents((await framed.read()).subarray());
      if (frame.through <= last) throw new BadFrame(`a page through ${frame.through} after one through ${last}`);
    } catch (error) {
      // The page being stored is acknowledged first: the peer need not send it again.
      await storing;
      if (endedCleanly(error)) return;
      hooks.countDrop(key, 'malformed-frame');
      hooks.logger.warn('a frame from a peer was refused; its stream is reset', { peer: key, error: error instanceof Error ? error.message : String(error) });
      stream.abort(error as Error);
      return;
    }
    last = frame.through;
    hooks.heard(key);
    const page = hooks.sync.prepare(key, frame.events, frame.live);
    const before = storing;
    storing = before.then((stored) => stored && storeAndAcknowledge(key, page, frame.through, framed, stream, hooks));
    // The page before this one is stored before another is read: one page is checked ahead, no more.
    if (!(await before)) return;
  }
}

/** Takes one page in and acknowledges it; false (the stream reset) when it could not be: the peer sends it again. */
async function storeAndAcknowledge(key: string, page: PreparedPage, through: number, framed: ReturnType<typeof lpStream>, stream: Stream, hooks: EventLinkHooks): Promise<boolean> {
  try {
    const taken = await takeWithRefresh(key, page, hooks);
    for (const outcome of taken) {
      if (!('dropped' in outcome)) continue;
      hooks.countDrop(key, outcome.dropped);
      hooks.logger.warn('an event from a peer was refused', { peer: key, reason: outcome.dropped, error: outcome.message });
    }
    await framed.write(encodeAck(through));
    return true;
  } catch (error) {
    // Not acknowledged (the hub is closing, or the link went): the peer sends it again.
    if (!endedCleanly(error)) hooks.logger.warn('a page from a peer was not taken; it is sent again', { peer: key, error: error instanceof Error ? error.message : String(error) });
    stream.abort(error instanceof Error ? error : new Error(String(error)));
    return false;
  }
}

/** Refusals that a hello or roster this hub has not read yet may undo: the events are taken again once it has. */
const STALE_REFUSALS: ReadonlySet<DropReason> = new Set(['not-hosted', 'author-not-in-roster']);

/**
 * Takes a page in; when some of it was refused because this hub does not
 * know its author as the peer's (a participant who joined there since the
 * last hello, under a newer roster), asks the peer's hello again and takes
 * those events once more, in their order, before the page is acknowledged.
 */
async function takeWithRefresh(key: string, page: PreparedPage, hooks: EventLinkHooks): Promise<PeerTaken[]> {
  const taken = await hooks.sync.take(page);
  const stale = taken.flatMap((outcome, i) => ('dropped' in outcome && STALE_REFUSALS.has(outcome.dropped) ? [i] : []));
  if (stale.length === 0 || !(await hooks.refresh(key))) return taken;
  const again = await hooks.sync.take(hooks.sync.prepare(key, stale.map((i) => page.events[i]!), page.live));
  stale.forEach((at, i) => (taken[at] = again[i]!));
  return taken;
}

/** The stream ended between frames (the sender closed it, or the link went). */
function endedCleanly(error: unknown): boolean {
  const name = (error as Error | undefined)?.name;
  return name === 'UnexpectedEOFError' || name === 'StreamClosedError' || name === 'StreamResetError' || name === 'StreamStateError';
}
