// Reading threads: new since the hub-kept cursor, history by seq, full-text search, thread list.

import type { z } from 'zod';
import { ParleyError } from '../errors/parley-error.js';
import { DEFAULT_READ_LIMIT } from '../config/defaults.js';
import type { ParleyEvent } from '../schema/event.js';
import type { HistoryInputSchema, ReadNewInputSchema, SearchInputSchema } from '../schema/inputs.js';
import { rowSize, rowToEvent } from '../store/event-log.js';
import type { HubContext } from './context.js';
import type { Caller } from './records.js';
import type { Admitted } from './gate.js';
import type { ThreadRecord } from './records.js';
import { dmPeer, dmPeerHub } from './thread-ref.js';
import { mayRead } from './channel-access.js';
import { threadInfo, type ThreadInfo } from './threads.js';
import { writeNow } from './writer.js';
import type { HistoryResult, ReadNewResult } from './answers.js';

const UNREAD_COUNT_CAP = 1000;

/**
 * Moves a reader's hub-kept cursor in a thread forward to `seq`, and counts
 * the targeted items up to there as delivered. Not awaited: a cursor lost to a
 * crash only means events are delivered again.
 */
export function advanceReadCursor(ctx: HubContext, participantId: string, threadId: string, seq: number): void {
  const now = ctx.now();
  writeNow(ctx, () => {
    ctx.store.deliveries.advance(participantId, threadId, seq);
    ctx.store.deliveries.markThreadDelivered(participantId, threadId, seq, now);
  });
}

export function readNew(ctx: HubContext, { caller, thread, input: parsed }: Admitted<z.output<typeof ReadNewInputSchema>, ThreadRecord>): ReadNewResult {
  const me = caller.participant.id;
  const limit = parsed.limit ?? DEFAULT_READ_LIMIT;
  const cursor = ctx.store.deliveries.cursor(me, thread.id);
  const { rows: page, more } = ctx.store.events.shownPageAfter(thread.id, cursor, limit, ctx.config.chat.limits.maxReadBytes);
  const newPointer = page.length > 0 ? (page[page.length - 1]?.seq ?? cursor) : cursor;
  if (newPointer > cursor) advanceReadCursor(ctx, me, thread.id, newPointer);
  const events: ParleyEvent[] = [];
  for (const row of page) if (row.from_id !== me) events.push(rowToEvent(row));
  return { events, newPointer, more };
}

/**
 * A page of a thread's log in seq order. Without `after`, the newest page
 * (before `before`). Pages stop at `limit` events or chat.limits.maxReadBytes.
 */
export function history(ctx: HubContext, { thread, input: parsed }: Admitted<z.output<typeof HistoryInputSchema>, ThreadRecord>): HistoryResult {
  const limit = parsed.limit ?? DEFAULT_READ_LIMIT;
  const maxBytes = ctx.config.chat.limits.maxReadBytes;
  if (parsed.after !== undefined) {
    const { rows, more } = ctx.store.events.shownPageAfter(thread.id, parsed.after, limit, maxBytes, parsed.before ?? Number.MAX_SAFE_INTEGER);
    return { events: rows.map(rowToEvent), more };
  }
  const { rows, more } = ctx.store.events.pageBefore(thread.id, parsed.before ?? Number.MAX_SAFE_INTEGER, limit, maxBytes);
  return { events: rows.reverse().map(rowToEvent), more };
}

/**
 * Full-text search over message text in the session. The query is taken as
 * words (all must match; a trailing `*` matches a prefix), never as raw FTS
 * syntax, so no input can make it fail.
 */
export async function search(ctx: HubContext, { caller, thread, input: parsed }: Admitted<z.output<typeof SearchInputSchema>>): Promise<{ events: ParleyEvent[] }> {
  // Word characters as the index's tokenizer sees them: one term each, so no phrase is needed.
  const words = parsed.query.match(/[\p{L}\p{N}]+\*?/gu) ?? [];
  if (words.length === 0) {
    throw new ParleyError('INVALID_INPUT', 'Invalid query: give at least one word to search for.', { field: 'query' });
  }
  const match = words
    .slice(0, 32)
    .map((w) => (w.endsWith('*') ? `"${w.slice(0, -1)}"*` : `"${w}"`))
    .join(' ');
  const scope = { sessionId: caller.session.id, viewerId: caller.participant.id, ...(thread ? { threadId: thread.id } : {}) };
  const seqs = await ctx.search.search(match, scope, parsed.limit ?? 50);
  const events: ParleyEvent[] = [];
  let bytes = 0;
  for (const seq of seqs) {
    const row = ctx.store.events.bySeq(seq);
    // The index is derived: check every hit against the log before showing it.
    const hitThread = row ? ctx.state.threads.get(row.thread_id) : undefined;
    if (!row || !hitThread || row.session_id !== caller.session.id) continue;
    // DMs to their two participants, channels with an access policy to its readers.
    if (!mayRead(ctx, hitThread, caller.participant.id)) continue;
    // Like every read, at most about maxReadBytes (the best hits come first).
    if (bytes > 0 && bytes + rowSize(row) > ctx.config.chat.limits.maxReadBytes) break;
    bytes += rowSize(row);
    events.push(rowToEvent(row));
  }
  return { events };
}

/** The session's threads, with the caller's subscription and unread count (capped at 1000). */
export function listThreads(ctx: HubContext, caller: Caller): ThreadInfo[] {
  const me = caller.participant.id;
  return ctx.state
    .threadsOf(caller.session.id)
    // Only threads whose creation has committed, DMs only to their two participants, and channels with an access policy only to its readers.
    .filter((t) => t.createdSeq <= ctx.store.events.visibleUpTo && mayRead(ctx, t, me))
    .map((thread) => {
      const cursor = ctx.store.deliveries.cursor(me, thread.id);
      const peer = dmPeer(ctx, thread, me);
      return {
        ...threadInfo(thread, me),
        unread: ctx.store.events.countUnread(thread.id, cursor, me, UNREAD_COUNT_CAP),
        ...(peer === undefined ? {} : { with: peer, ...dmPeerHub(ctx, thread, me) }),
      };
    });
}
