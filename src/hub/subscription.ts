// A live subscription as an AsyncIterable: first the stored events after
// `since` (replayed from the store, in seq order), then live ones, with no gap
// and no duplicate. Replay reads the store page by page; while it runs, live
// events are not queued, because they are already committed and the next page
// will find them. A consumer that falls `liveQueueLimit` items behind is cut
// off with SLOW_CONSUMER and resumes with `since` = the last seq it saw.

import { ParleyError } from '../errors/parley-error.js';
import type { LiveFilterInputSchema } from '../schema/inputs.js';
import { rowToEvent, type ShownEventRow } from '../store/event-log.js';
import type { z } from 'zod';
import { chatOpenFor } from './chat-exclusion.js';
import type { HubContext } from './context.js';
import type { LiveItem } from './live-bus.js';
import { placementOf, pushes } from './participation.js';
import type { Caller } from './records.js';
import { mayRead } from './channel-access.js';
import type { Admitted } from './gate.js';
import { Ending, type Held } from './held.js';
import { wakeOnFor } from './wake-on.js';
import type { ThreadRecord } from './records.js';
import type { DeliveryReason } from './delivery-reason.js';

export interface LiveFilter {
  /** Only this thread (resolved by the caller). */
  thread?: ThreadRecord;
  /** Only what would land in the subscriber's inbox. */
  inbox?: boolean;
  /** Replay stored events with seq above this first. */
  since?: number;
  /** Include presence and meeting traffic (default true). */
  ephemeral?: boolean;
}

/** Where a subscription in push mode delivers (see LiveSubscription.pipe). */
export interface LiveSink {
  /** Takes one item; false when the consumer can take no more until it calls `resume()`. */
  item(item: LiveItem): boolean;
  /** Told once when the subscription ends, with the error that ended it (e.g. SLOW_CONSUMER), if any. */
  end(error?: ParleyError): void;
}

export interface LiveSubscription extends AsyncIterableIterator<LiveItem> {
  close(): void;
  /**
   * Push mode, instead of iterating: each item goes to `sink` synchronously as
   * it is published, with no promise per item, for a consumer that writes at
   * once (the SSE route, which a busy thread fans out to many subscribers).
   * Items queue only while the sink has said it is full, up to the same limit
   * as when iterating, and flow again at `resume()`.
   */
  pipe(sink: LiveSink): void;
  resume(): void;
}

const REPLAY_PAGE = 500;

/** `onEnd` runs once when the subscription ends, however it ends (closed, cut off, or the hub shutting down). */
export function subscribe(ctx: HubContext, caller: Caller, filter: LiveFilter, onEnd?: () => void): LiveSubscription {
  const me = caller.participant.id;
  const queue: LiveItem[] = [];
  let waiting: ((result: IteratorResult<LiveItem>) => void) | undefined;
  let failing: ((error: unknown) => void) | undefined;
  let replaying = filter.since !== undefined;
  let lastSeq = filter.since ?? 0;
  let closed = false;
  let failure: ParleyError | undefined;
  let sink: LiveSink | undefined;
  let sinkFull = false;

  // Decided when subscribing, as the MCP tool list is when connecting.
  const chatOpen = chatOpenFor(ctx.config, caller.participant.profile);
  const visible = (thread: ThreadRecord | undefined): thread is ThreadRecord =>
    thread !== undefined && mayRead(ctx, thread, me) && (!filter.thread || filter.thread.id === thread.id);

  const wanted = (item: LiveItem): boolean => {
    if (item.kind !== 'event') return filter.ephemeral !== false;
    const thread = ctx.state.threads.get(item.event.thread);
    if (!visible(thread)) return false;
    if (!filter.inbox) return true;
    const placement = placementOf(thread, item.event, me, item.targets.get(me), chatOpen, wakeOnFor(ctx.config, caller.participant.profile));
    return placement !== undefined && pushes(placement);
  };

  const push = (item: LiveItem): void => {
    if (closed) return;
    if (item.kind === 'event') {
      if (item.event.seq <= lastSeq) return;
      lastSeq = item.event.seq;
    }
    if (sink && !sinkFull && queue.length === 0) {
      sinkFull = !sink.item(item);
      return;
    }
    if (waiting) {
      const resolve = waiting;
      waiting = undefined;
      failing = undefined;
      resolve({ value: item, done: false });
      return;
    }
    queue.push(item);
    if (queue.length > ctx.config.inbox.liveQueueLimit) {
      const resumeFrom = lastSeqBefore();
      failure = new ParleyError(
        'SLOW_CONSUMER',
        `The live subscription fell ${queue.length} items behind and was closed; resubscribe with since=${resumeFrom} to resume without loss.`,
        { details: { since: resumeFrom } },
      );
      // What was queued is dropped: the consumer resumes from the store instead.
      queue.length = 0;
      finish();
    }
  };
  const lastSeqBefore = (): number => {
    for (const item of queue) if (item.kind === 'event') return item.event.seq - 1;
    return lastSeq;
  };

  const unlisten = ctx.bus.listen(
    caller.session.id,
    (item) => {
      if (replaying && item.kind === 'event') return;
      if (wanted(item)) push(item);
    },
    // The hub is shutting down: end the stream; the consumer resumes elsewhere by seq.
    () => finish(),
  );

  const targetsOf = (row: ShownEventRow): ReadonlyMap<string, DeliveryReason> => {
    const delivery = ctx.store.deliveries.get(me, row.seq);
    return delivery ? new Map([[me, delivery.reason as DeliveryReason]]) : new Map();
  };

  /** Reads one page of stored events into the queue; ends replay when the store is exhausted. */
  const replayPage = (): void => {
    const rows = filter.thread
      ? ctx.store.events.readAfter(filter.thread.id, lastSeq, REPLAY_PAGE)
      : ctx.store.events.readSessionAfter(caller.session.id, lastSeq, REPLAY_PAGE);
    for (const row of rows) {
      const item: LiveItem = { kind: 'event', session: row.session_id, event: rowToEvent(row), targets: targetsOf(row) };
      if (wanted(item)) queue.push(item);
      lastSeq = row.seq;
    }
    if (rows.length < REPLAY_PAGE) replaying = false;
  };

  /** Push mode: hands the sink what is queued or still to replay, until it is full or the subscription ends. */
  const flushToSink = (): void => {
    try {
      while (sink && !sinkFull && !closed) {
        while (queue.length === 0 && replaying && !closed) replayPage();
        const item = queue.shift();
        if (item === undefined) return;
        sinkFull = !sink.item(item);
      }
    } catch (error) {
      // As an iterator's next() would reject: the sink hears why the stream ended.
      failure = error instanceof ParleyError ? error : new ParleyError('INTERNAL', `The live stream failed: ${(error as Error).message}`, { cause: error });
      finish();
    }
  };

  function finish(): void {
    if (closed) return;
    closed = true;
    unlisten();
    onEnd?.();
    sink?.end(failure);
    if (waiting) {
      const resolve = waiting;
      const reject = failing;
      waiting = undefined;
      failing = undefined;
      if (failure && reject) reject(failure);
      else resolve({ value: undefined, done: true });
    }
  }

  const iterator: LiveSubscription = {
    next(): Promise<IteratorResult<LiveItem>> {
      while (queue.length === 0 && replaying && !closed) replayPage();
      const item = queue.shift();
      if (item) return Promise.resolve({ value: item, done: false });
      if (failure) return Promise.reject(failure);
      if (closed) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve, reject) => {
        waiting = resolve;
        failing = reject;
      });
    },
    return(): Promise<IteratorResult<LiveItem>> {
      finish();
      queue.length = 0;
      return Promise.resolve({ value: undefined, done: true });
    },
    close(): void {
      finish();
    },
    pipe(to: LiveSink): void {
      if (sink) throw new ParleyError('INTERNAL', 'A live subscription delivers to one sink only.');
      sink = to;
      if (closed) to.end(failure);
      else flushToSink();
    },
    resume(): void {
      sinkFull = false;
      flushToSink();
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

/**
 * A live stream of the caller's session as the gate opens it (the filter
 * parsed and its thread checked there). Access is checked when it opens and
 * again whenever it changes (a new roster, an admin's override): a
 * participant who may no longer read, or no longer read the stream's channel
 * (its policy naming a role), has its open stream ended, not fed.
 */
export function openLive(ctx: HubContext, { caller, thread, input }: Admitted<z.output<typeof LiveFilterInputSchema>>): Held<LiveSubscription> {
  const ending = new Ending();
  const subscription = subscribe(
    ctx,
    caller,
    {
      ...(thread ? { thread } : {}),
      ...(input.inbox === undefined ? {} : { inbox: input.inbox }),
      ...(input.since === undefined ? {} : { since: input.since }),
      ...(input.ephemeral === undefined ? {} : { ephemeral: input.ephemeral }),
    },
    ending.end,
  );
  if (!ending.ended) {
    const stopWatching = ctx.access.onChange((participantId) => {
      if (participantId !== undefined && participantId !== caller.participant.id) return;
      try {
        ctx.access.require(caller.participant, 'live');
      } catch {
        subscription.close();
        return;
      }
      if (thread && !mayRead(ctx, thread, caller.participant.id)) subscription.close();
    });
    ending.onEnd(stopWatching);
  }
  return { value: subscription, ending };
}
