// The inbox: everything that needs one participant's attention in one session.
// High items (DMs, requests, responses, mentions, prods, invites, controls on
// me) are tracked per recipient (pending → delivered → acknowledged); Normal
// (subscribed threads) and Low (muted threads) items are what lies past the
// participant's cursor in each thread. One's own events never appear.

import { parseInput } from '../errors/parley-error.js';
import { DEFAULT_INBOX_LIMIT } from '../config/defaults.js';
import type { ParleyEvent } from '../schema/event.js';
import { InboxInputSchema, type InboxInput } from '../schema/inputs.js';
import type { DeliveryState } from '../schema/delivery.js';
import { rowSize, rowToEvent, type ShownEventRow } from '../store/event-log.js';
import { chatOpenFor, reachesWithoutChat } from './chat-exclusion.js';
import type { HubContext } from './context.js';
import { placementOf, respondHint, type Placement } from './participation.js';
import type { Caller } from './records.js';
import { dmPeer } from './thread-ref.js';
import { mayRead } from './channel-access.js';
import { wakeOnFor } from './wake-on.js';
import type { ThreadRecord } from './records.js';
import type { DeliveryReason } from './delivery-reason.js';
import { writeNow } from './writer.js';
import { pendingThreads } from './inbox-pending.js';
import type { InboxItem, InboxReason, InboxResult, Priority } from './answers.js';

const PRIORITY_RANK: Record<Priority, number> = { high: 0, normal: 1, low: 2 };

/** Rows read first from each thread: most threads stop at their first candidate once the budget is filled. */
const FIRST_PAGE = 1;

/** From this many threads to look at, their cursors are read in one statement. */
const MANY_THREADS = 16;

const NONE: ReadonlySet<number> = new Set();

interface Candidate {
  row: ShownEventRow;
  event: ParleyEvent;
  placement: Placement;
}

interface ThreadScan {
  thread: ThreadRecord;
  /** More candidates lie beyond those read. */
  cut: boolean;
  candidates: Candidate[];
  lastScanned: number;
}

/**
 * How a read treats what it returns: `peek` marks nothing; a consuming read
 * marks targeted items delivered and moves cursors; `inject` (a hook or the
 * LLM middleware putting items into the agent's context) returns only waking
 * items, marks targeted ones injected, and moves no cursor past an item it
 * holds back, so those stay readable.
 */
export interface ReadMode {
  peek: boolean;
  inject?: boolean;
  /** Consider only events up to this seq (an injection taking what an earlier peek saw). */
  upTo?: number;
}

export function readInbox(ctx: HubContext, caller: Caller, input: InboxInput, mode: ReadMode): InboxResult {
  const parsed = parseInput(InboxInputSchema, input);
  const limit = parsed.limit ?? DEFAULT_INBOX_LIMIT;
  const me = caller.participant.id;
  const items: InboxItem[] = [];
  let more = false;

  // An inbox read returns at most about maxReadBytes of events (always at least one item); the rest waits for the next read.
  const maxBytes = ctx.config.chat.limits.maxReadBytes;
  let bytes = 0;
  const fits = (row: ShownEventRow): boolean => {
    if (bytes > 0 && bytes + rowSize(row) > maxBytes) return false;
    bytes += rowSize(row);
    return true;
  };

  const chatOpen = chatOpenFor(ctx.config, caller.participant.profile);
  const wakeOn = wakeOnFor(ctx.config, caller.participant.profile);
  const bound = Math.min(ctx.store.events.visibleUpTo, mode.upTo ?? Number.POSITIVE_INFINITY);
  const pending = ctx.store.deliveries.pending(me, caller.session.id, bound, limit + 1);
  if (pending.length > limit) more = true;
  for (const delivery of pending.slice(0, limit)) {
    const thread = ctx.state.threads.get(delivery.thread_id);
    const row = ctx.store.events.bySeq(delivery.seq);
    if (!thread || !row || !mayRead(ctx, thread, me)) continue;
    // Queued before chat was closed for this participant (the config changed): no longer theirs.
    if (!chatOpen && !reachesWithoutChat(delivery.reason)) continue;
    if (!fits(row)) {
      more = true;
      break;
    }
    const event = rowToEvent(row);
    const reason = delivery.reason as DeliveryReason;
    items.push(itemOf(ctx, thread, event, me, { priority: 'high', reason, wakes: true }, mode.peek ? 'pending' : mode.inject ? 'injected' : 'delivered'));
  }

  // Normal and Low: per thread, the events past the cursor that are not already High items (all chat: none without it).
  // Only threads that may hold something past the cursor are looked at (inbox-pending.ts).
  const looked = chatOpen ? pendingThreads(ctx, me, caller.session.id, bound) : undefined;
  const budget = Math.max(0, limit - items.length);
  // The seqs of the lowest `budget` candidates so far: a candidate above the highest of them is never taken.
  const lowest: number[] = [];
  const threshold = (): number => (budget === 0 ? -1 : lowest.length < budget ? Number.POSITIVE_INFINITY : lowest[budget - 1]!);
  const scans: ThreadScan[] = [];
  /** Threads seen to hold nothing past the cursor up to the bound (before this read moves any cursor). */
  const empty: string[] = [];
  const threadsToScan = looked?.threads ?? [];
  // Many threads to look at (a large backlog): their cursors in one statement rather than one each.
  const cursors = threadsToScan.length >= MANY_THREADS ? ctx.store.deliveries.cursorsIn(me, threadsToScan.map((t) => t.id)) : undefined;
  for (const thread of threadsToScan) {
    const membership = thread.members.get(me);
    if (!membership || membership.subscription === 'unsubscribed') continue;
    // A subscription made before the channel's access policy left this participant out gives nothing from it.
    if (!mayRead(ctx, thread, me)) continue;
    const cursor = cursors ? (cursors.get(thread.id) ?? 0) : ctx.store.deliveries.cursor(me, thread.id);
    // Read until one candidate more than the limit is found (to know there is more) or the thread ends.
    const candidates: Candidate[] = [];
    // One candidate more than the limit, and some room for the reader's own and targeted rows among them.
    const page = Math.max(limit + 1 + Math.ceil(limit / 8), 16);
    let lastScanned = cursor;
    let exhausted = false;
    // An injection stops at the first item it does not inject, so the cursor never passes it.
    let held = false;
    // Stopped at a candidate that lies beyond what this read can take.
    let beyond = false;
    // No read takes more than maxBytes, so no thread needs to offer more than that (bounds memory across many threads).
    let candidateBytes = 0;
    const full = (): boolean => candidates.length > limit || candidateBytes > maxBytes;
    // Once the budget is filled, a small first page: most threads stop at their first candidate.
    let size = Number.isFinite(threshold()) ? FIRST_PAGE : page;
    while (!full() && !exhausted && !held && !beyond) {
      const rows = ctx.store.events.readAfter(thread.id, lastScanned, size);
      exhausted = rows.length < size;
      size = page;
      const targeted = rows.length === 0 ? NONE : ctx.store.deliveries.targetedIn(me, thread.id, rows[0]!.seq, rows[rows.length - 1]!.seq);
      for (const row of rows) {
        if (full()) break;
        if (row.seq > bound) {
          exhausted = true;
          break;
        }
        if (row.from_id === me || targeted.has(row.seq)) {
          lastScanned = row.seq;
          continue;
        }
        const event = rowToEvent(row);
        const placement = placementOf(thread, event, me, undefined, chatOpen, wakeOn);
        if (mode.inject && placement && !placement.wakes) {
          held = true;
          break;
        }
        if (placement && row.seq > threshold()) {
          beyond = true;
          break;
        }
        lastScanned = row.seq;
        if (placement) {
          candidates.push({ row, event, placement });
          candidateBytes += rowSize(row);
          insertSorted(lowest, row.seq, budget);
        }
      }
    }
    if (beyond) more = true;
    if (lastScanned === cursor) {
      if (exhausted && !held && !beyond) empty.push(thread.id);
      continue;
    }
    const cut = full() || held || beyond;
    scans.push({ thread, cut, candidates, lastScanned });
  }
  const merged = scans.flatMap((s) => s.candidates.map((candidate) => ({ scan: s, candidate }))).sort((a, b) => a.candidate.row.seq - b.candidate.row.seq);
  const taken: typeof merged = [];
  for (const entry of merged.slice(0, budget)) {
    if (!fits(entry.candidate.row)) break;
    taken.push(entry);
  }
  if (merged.length > taken.length) more = true;
  const takenByThread = new Map<string, number>();
  for (const { scan, candidate } of taken) {
    items.push(itemOf(ctx, scan.thread, candidate.event, me, candidate.placement, undefined));
    takenByThread.set(scan.thread.id, candidate.row.seq);
  }

  // Threads whose cursor this read moves to the end of what it scanned, having scanned up to the bound.
  const emptied: string[] = [];
  if (!mode.peek) {
    const now = ctx.now();
    const advances: Array<[string, number]> = [];
    for (const scan of scans) {
      const lastTaken = takenByThread.get(scan.thread.id);
      const allTaken = !scan.cut && (scan.candidates.length === 0 || lastTaken === scan.candidates[scan.candidates.length - 1]?.row.seq);
      const upto = allTaken ? scan.lastScanned : lastTaken;
      if (upto !== undefined) advances.push([scan.thread.id, upto]);
      if (allTaken) emptied.push(scan.thread.id);
    }
    const delivered = items.filter((i) => i.priority === 'high').map((i) => i.event.seq);
    if (advances.length > 0 || delivered.length > 0) {
      const { committed } = writeNow(ctx, () => {
        for (const [threadId, seq] of advances) ctx.store.deliveries.advance(me, threadId, seq);
        for (const seq of delivered) {
          if (mode.inject) ctx.store.deliveries.markInjected(me, seq, now);
          else ctx.store.deliveries.markDelivered(me, seq, now);
        }
      });
      // A rolled-back cursor leaves those events to read again: their threads must be looked at again.
      if (emptied.length > 0) committed.catch(() => looked?.restore(emptied));
    }
  }
  looked?.drop([...empty, ...emptied]);
  items.sort((a, b) => PRIORITY_RANK[a.priority] - PRIORITY_RANK[b.priority] || b.event.seq - a.event.seq);
  return { items, more };
}

/**
 * Takes exactly these items for the caller, as an injection (the LLM
 * middleware's commit of what a successful model call was shown): targeted
 * ones become injected, and each thread's cursor moves up to the last of them
 * there. Nothing else is taken: not what was posted meanwhile, nor what
 * became waking meanwhile (a thread unmuted by the call's own tools). Returns
 * the items taken now (those another read took meanwhile are left out).
 */
export function takeShown(ctx: HubContext, caller: Caller, seqs: readonly number[]): InboxItem[] {
  const me = caller.participant.id;
  const chatOpen = chatOpenFor(ctx.config, caller.participant.profile);
  const wakeOn = wakeOnFor(ctx.config, caller.participant.profile);
  const targeted: Array<{ seq: number; item: InboxItem }> = [];
  const normal: Array<{ thread: ThreadRecord; seq: number; item: InboxItem }> = [];
  for (const seq of [...new Set(seqs)].sort((a, b) => a - b)) {
    const row = seq <= ctx.store.events.visibleUpTo ? ctx.store.events.bySeq(seq) : undefined;
    const thread = row ? ctx.state.threads.get(row.thread_id) : undefined;
    if (!row || !thread || row.session_id !== caller.session.id || row.from_id === me || !mayRead(ctx, thread, me)) continue;
    const event = rowToEvent(row);
    const delivery = ctx.store.deliveries.get(me, seq);
    if (delivery) {
      if (!chatOpen && !reachesWithoutChat(delivery.reason)) continue;
      targeted.push({ seq, item: itemOf(ctx, thread, event, me, { priority: 'high', reason: delivery.reason as DeliveryReason, wakes: true }, 'injected') });
      continue;
    }
    const placement = placementOf(thread, event, me, undefined, chatOpen, wakeOn);
    if (!placement || !thread.members.has(me) || ctx.store.deliveries.cursor(me, thread.id) >= seq) continue;
    normal.push({ thread, seq, item: itemOf(ctx, thread, event, me, placement, undefined) });
  }
  // Each thread's cursor moves past what was shown there, and past what is not the cursor's (its own events,
  // targeted items, what is not for it) — but never past an item that was not shown.
  const shown = new Set([...targeted, ...normal].map(({ seq }) => seq));
  const threads = new Map<string, { thread: ThreadRecord; last: number }>();
  for (const seq of shown) {
    const thread = ctx.state.threads.get(ctx.store.events.bySeq(seq)!.thread_id)!;
    if (thread.members.has(me)) threads.set(thread.id, { thread, last: Math.max(seq, threads.get(thread.id)?.last ?? 0) });
  }
  const advances: Array<[string, number]> = [];
  for (const { thread, last } of threads.values()) {
    const cursor = ctx.store.deliveries.cursor(me, thread.id);
    const upto = passable(ctx, thread, me, cursor, last, (row) => shown.has(row.seq) || placementOf(thread, rowToEvent(row), me, undefined, chatOpen, wakeOn) === undefined);
    if (upto > cursor) advances.push([thread.id, upto]);
  }
  const now = ctx.now();
  const { value: injected } = writeNow(ctx, () => {
    const taken = targeted.filter(({ seq }) => ctx.store.deliveries.markInjected(me, seq, now)).map(({ item }) => item);
    for (const [threadId, seq] of advances) ctx.store.deliveries.advance(me, threadId, seq);
    return taken;
  });
  return [...injected, ...normal.map(({ item }) => item)];
}

/** Inserts `seq` into the ascending `lowest`, keeping at most `cap` entries. */
function insertSorted(lowest: number[], seq: number, cap: number): void {
  let at = lowest.length;
  while (at > 0 && lowest[at - 1]! > seq) at -= 1;
  if (at >= cap) return;
  lowest.splice(at, 0, seq);
  if (lowest.length > cap) lowest.pop();
}

/** How far a cursor at `cursor` may move, up to `last`: over the caller's own events, targeted items and rows `pass` allows. */
function passable(ctx: HubContext, thread: ThreadRecord, me: string, cursor: number, last: number, pass: (row: ShownEventRow) => boolean): number {
  let upto = cursor;
  for (;;) {
    const rows = ctx.store.events.readAfter(thread.id, upto, 64);
    for (const row of rows) {
      if (row.seq > last) return upto;
      if (row.from_id !== me && !ctx.store.deliveries.isTargeted(me, row.seq) && !pass(row)) return upto;
      upto = row.seq;
    }
    if (rows.length < 64) return upto;
  }
}

function withPeer(ctx: HubContext, thread: ThreadRecord, me: string): { with?: string } {
  const peer = dmPeer(ctx, thread, me);
  return peer === undefined ? {} : { with: peer };
}

function itemOf(
  ctx: HubContext,
  thread: ThreadRecord,
  event: ParleyEvent,
  me: string,
  placement: { priority: Priority; reason: InboxReason; wakes: boolean },
  delivery: DeliveryState | undefined,
): InboxItem {
  return {
    priority: placement.priority,
    reason: placement.reason,
    wakes: placement.wakes,
    respondHint: respondHint(ctx, thread, event, me, placement.reason),
    ...(delivery === undefined ? {} : { delivery }),
    thread: { id: thread.id, name: thread.name, kind: thread.kind, ...withPeer(ctx, thread, me) },
    event,
  };
}
