import type { ParleyEvent } from '../schema/event.js';

/**
 * The text of an event that full-text search indexes, derived from the event
 * alone so the index can always be rebuilt from the log: message text, a
 * request's intent and note, a response's note, a side channel's title.
 */
export function searchTextOf(event: ParleyEvent): string | undefined {
  const content = event.content as Record<string, unknown> | string;
  switch (event.type) {
    case 'message':
      return typeof content === 'string' ? content : undefined;
    case 'request': {
      const c = content as { intent?: unknown; text?: unknown };
      return [c.intent, c.text].filter((v): v is string => typeof v === 'string').join(' ') || undefined;
    }
    case 'response': {
      const text = (content as { text?: unknown }).text;
      return typeof text === 'string' ? text : undefined;
    }
    case 'system': {
      const c = content as { action?: unknown; title?: unknown };
      return c.action === 'side.opened' && typeof c.title === 'string' ? c.title : undefined;
    }
    default:
      return undefined;
  }
}
