// Context items: what a client hook (or the LLM middleware) puts into an
// agent's context (the API calls it injecting). It takes the caller's new waking (High and Normal) inbox items that
// no read has given it yet, each once: targeted ones are marked injected, and
// thread cursors move as a consuming read moves them. The answer is compact,
// ready to be turned into a few lines of context text.

import { MAX_INBOX_LIMIT } from '../config/defaults.js';
import { parseInput } from '../errors/parley-error.js';
import { InjectInputSchema, type InjectInput } from '../schema/inputs.js';
import type { HubContext } from './context.js';
import { readInbox, takeShown } from './inbox.js';
import type { Caller } from './records.js';
import type { ContextItem } from '../schema/views.js';
import type { InboxItem, InjectResult } from './answers.js';

/**
 * With `peek`, nothing is marked and no cursor moves (the middleware looks
 * before a model call); with `take`, exactly the items of those seqs are
 * taken (it commits, after the call succeeded, what the call was shown), and
 * the answer lists those it took now.
 */
export function inject(ctx: HubContext, caller: Caller, input: InjectInput): InjectResult {
  const parsed = parseInput(InjectInputSchema, input);
  const head = ctx.store.events.visibleUpTo;
  if (parsed.take) return { items: oldestFirst(takeShown(ctx, caller, parsed.take)), head };
  const result = readInbox(ctx, caller, parsed.limit === undefined ? {} : { limit: parsed.limit }, { peek: parsed.peek === true, inject: true, upTo: head });
  const items = oldestFirst(result.items);
  if (!result.more) return { items, head };
  return { items, more: true, waiting: waitingBeyond(ctx, caller, head, parsed.peek === true ? items.length : 0), head };
}

/** Oldest first: the order the agent should read them in. */
function oldestFirst(items: InboxItem[]): ContextItem[] {
  return items.map(contextItem).sort((a, b) => a.seq - b.seq);
}

/** Waking items in the inbox up to `head`, less those a peek is giving (a consuming read has already taken its own). */
function waitingBeyond(ctx: HubContext, caller: Caller, head: number, given: number): { count: number; atLeast?: true } {
  const rest = readInbox(ctx, caller, { limit: MAX_INBOX_LIMIT }, { peek: true, upTo: head });
  const count = Math.max(0, rest.items.filter((item) => item.wakes).length - given);
  return { count, ...(rest.more ? { atLeast: true as const } : {}) };
}

function contextItem(item: InboxItem): ContextItem {
  const { event } = item;
  return {
    id: event.id,
    seq: event.seq,
    ts: event.ts,
    priority: item.priority === 'high' ? 'high' : 'normal',
    reason: item.reason,
    thread: item.thread.name,
    ...(item.thread.with === undefined ? {} : { with: item.thread.with }),
    from: event.author,
    ...(event.type === 'message' ? {} : { type: event.type }),
    text: typeof event.content === 'string' ? event.content : JSON.stringify(event.content),
    ...(item.respondHint ? { respond: true as const } : {}),
  };
}
