import { MAX_INBOX_LIMIT } from '../config/defaults.js';
import { parseInput } from '../errors/parley-error.js';
import { InjectInputSchema, type InjectInput } from '../schema/inputs.js';
import type { HubContext } from './context.js';
import { readInbox, takeShown, type InboxItem } from './inbox.js';
import type { Seat } from './seat.js';

/**
 * Injection: what a client hook (or the LLM middleware) puts into an agent's
 * context. It takes the caller's new waking (High and Normal) inbox items that
 * no read has given it yet, each once: targeted ones are marked injected, and
 * thread cursors move as a consuming read moves them. The answer is compact,
 * ready to be turned into a few lines of context text.
 */
export interface InjectedItem {
  id: string;
  seq: number;
  ts: string;
  priority: 'high' | 'normal';
  reason: string;
  /** Thread name; `with` is a DM's other participant. */
  thread: string;
  with?: string;
  from: string;
  /** Present for events other than messages. */
  type?: string;
  /** A message's text, or another event's content as JSON. */
  text: string;
  /** Set when the agent is expected to respond. */
  respond?: true;
}

export interface InjectResult {
  items: InjectedItem[];
  /** More items are waiting beyond this answer (the next call gets them). */
  more?: true;
  /** How many waking items wait beyond this answer (counted up to the inbox's largest page; `atLeast` past it). */
  waiting?: { count: number; atLeast?: true };
  /** The last event this answer considered. */
  head: number;
}

/**
 * With `peek`, nothing is marked and no cursor moves (the middleware looks
 * before a model call); with `take`, exactly the items of those seqs are
 * taken (it commits, after the call succeeded, what the call was shown), and
 * the answer lists those it took now.
 */
export function inject(ctx: HubContext, seat: Seat, input: InjectInput): InjectResult {
  const parsed = parseInput(InjectInputSchema, input);
  const head = ctx.store.events.visibleUpTo;
  if (parsed.take) return { items: oldestFirst(takeShown(ctx, seat, parsed.take)), head };
  const result = readInbox(ctx, seat, parsed.limit === undefined ? {} : { limit: parsed.limit }, { peek: parsed.peek === true, inject: true, upTo: head });
  const items = oldestFirst(result.items);
  if (!result.more) return { items, head };
  return { items, more: true, waiting: waitingBeyond(ctx, seat, head, parsed.peek === true ? items.length : 0), head };
}

/** Oldest first: the order the agent should read them in. */
function oldestFirst(items: InboxItem[]): InjectedItem[] {
  return items.map(injectedItem).sort((a, b) => a.seq - b.seq);
}

/** Waking items in the inbox up to `head`, less those a peek is giving (a consuming read has already taken its own). */
function waitingBeyond(ctx: HubContext, seat: Seat, head: number, given: number): { count: number; atLeast?: true } {
  const rest = readInbox(ctx, seat, { limit: MAX_INBOX_LIMIT }, { peek: true, upTo: head });
  const count = Math.max(0, rest.items.filter((item) => item.wakes).length - given);
  return { count, ...(rest.more ? { atLeast: true as const } : {}) };
}

function injectedItem(item: InboxItem): InjectedItem {
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
