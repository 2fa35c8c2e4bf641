// The one write path of the conversation log. An operation validates first
// (the gate, then the message rules), then calls `transact`, whose callback
// appends events (and updates derived tables) synchronously; the returned
// promise resolves once the group commit that holds them is durable, and only
// then are the events published live.

import type { SearchDoc } from '../search/search-index.js';
import { searchTextOf } from '../search/search-text.js';
import { eventToRow } from '../store/event-log.js';
import { CROSSING_EVENT_TYPES, type EventType, type ParleyEvent } from '../schema/event.js';
import type { HubContext } from './context.js';
import type { Reach } from './delivery-reason.js';
import type { CommittedEvent, EventDraft } from './event-draft.js';

const NO_ONE: Reach = new Map();

/** Event types by which an author answers in a thread (not controls, presence or system notes). */
const ANSWERING_TYPES: ReadonlySet<EventType> = new Set(['message', 'request', 'response', 'result']);

export class Transaction {
  readonly committed: CommittedEvent[] = [];

  constructor(private readonly ctx: HubContext) {}

  append(draft: EventDraft): ParleyEvent {
    const { ctx } = this;
    const state = ctx.state;
    // The hub's time, also for an envelope: a signed ts is the author's word, kept for its signature (event-sealer.ts).
    const ts = ctx.now();
    const author = state.participant(draft.from);
    const event: ParleyEvent = {
      seq: state.nextSeq,
      id: draft.sealed?.id ?? ctx.newId(),
      ts: new Date(ts).toISOString(),
      session: draft.thread.sessionId,
      thread: draft.thread.id,
      type: draft.type,
      from: draft.from,
      author: author.handle,
      to: draft.to,
      content: draft.content,
      ...(draft.meta && Object.keys(draft.meta).length > 0 ? { meta: draft.meta } : {}),
    };
    const row = eventToRow(event, ts);
    if (draft.sealed) ctx.sealer.keep(row, draft.sealed);
    else ctx.sealer.seal(row);
    ctx.store.events.append(row);
    state.nextSeq += 1;
    if (author.hubKey === undefined && CROSSING_EVENT_TYPES.has(event.type)) state.ownCrossingUpTo = event.seq;
    const targets = draft.reach ?? NO_ONE;
    for (const [participantId, reason] of targets) {
      ctx.store.deliveries.add(participantId, event.seq, event.session, event.thread, reason, event.from);
    }
    // Posting in a thread answers what was addressed to the author there.
    if (ANSWERING_TYPES.has(event.type)) ctx.store.deliveries.acknowledgeAnswered(draft.from, event.session, event.thread, event.seq, ts);
    this.committed.push({ event, targets });
    return event;
  }
}

export async function transact<T>(ctx: HubContext, fn: (tx: Transaction) => T): Promise<T> {
  const tx = new Transaction(ctx);
  // If fn throws, the batch is rolled back and the in-memory view reloaded (Store.onBatchFailed).
  const result = ctx.store.writes.write(
    () => fn(tx),
    () => {
      for (const item of tx.committed) ctx.store.events.markCommitted(item.event.seq);
      for (const item of tx.committed) {
        try {
          indexForSearch(ctx, item.event);
        } catch (error) {
          ctx.logger.error('could not hand an event to the search indexer', { error, seq: item.event.seq });
        }
        ctx.bus.publishEvent(item);
      }
    },
  );
  await result.committed;
  return result.value;
}

/** Hands a committed event's text to the search indexer. */
export function indexForSearch(ctx: HubContext, event: ParleyEvent): void {
  const doc = searchDocOf(ctx, event);
  if (doc) ctx.search.add(doc);
}

/** What the search index keeps of an event (DMs carry their audience), or undefined when it has no text. */
export function searchDocOf(ctx: Pick<HubContext, 'state'>, event: ParleyEvent): SearchDoc | undefined {
  const text = searchTextOf(event);
  if (text === undefined || text === '') return undefined;
  const thread = ctx.state.threads.get(event.thread);
  const audience = thread?.kind === 'dm' ? [...thread.members.keys()].join(',') : undefined;
  return { seq: event.seq, session: event.session, thread: event.thread, text, ...(audience ? { audience } : {}) };
}

/**
 * Like transact, for writes that touch no event (cursors, delivery states).
 * Callers may not wait for the commit: a lost cursor only means events are
 * delivered again. A failed commit is logged here, never left unhandled.
 */
export function writeNow<T>(ctx: HubContext, fn: () => T): { value: T; committed: Promise<void> } {
  const result = ctx.store.writes.write(fn);
  result.committed.catch((error: unknown) => ctx.logger.warn('a cursor or delivery-state write was rolled back', { error }));
  return result;
}
