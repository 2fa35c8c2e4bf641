import { TO_ALL, type ParleyEvent } from '../schema/event.js';

/** An event as a model needs it: who said what, when, and how to refer to it. */
export function compactEvent(event: ParleyEvent): Record<string, unknown> {
  const out: Record<string, unknown> = { id: event.id, seq: event.seq, ts: event.ts, author: event.author };
  if (event.type !== 'message') out.type = event.type;
  if (typeof event.content === 'string') out.text = event.content;
  else out.content = event.content;
  if (event.to && event.to !== TO_ALL) out.to = event.to;
  if (event.meta?.reply_to) out.reply_to = event.meta.reply_to;
  if (event.meta?.tags?.length) out.tags = event.meta.tags;
  if (event.meta?.link) out.link = event.meta.link;
  return out;
}
