import type { ParleyEvent, RequestContent } from '../schema/event.js';
import { eventSentence, shortRequestId, type HandleOf } from '../format/event-text.js';
import { HandleBook } from './handle-book.js';
import { styleFor, type Style } from './style.js';
import { terminalText } from './terminal-text.js';

/**
 * Events as the CLI prints them (read, history, inbox, wait, search, tail):
 * one line each, whatever others wrote in them made safe for a terminal
 * (terminal-text.ts) before it is coloured, so these lines are printed as they are.
 */

/** Where the handles come from: the session's participants, as the hub lists them. */
export interface ParticipantList {
  participants(): Promise<Array<{ id: string; handle: string }>>;
}

const time = (iso: string): string => iso.slice(11, 19);

/**
 * One event as a line: time, then "@author: text" for a message, or a
 * sentence for anything else ("@alice created #general", "@bob answered
 * 4F7K2Q: Completed"); coloured only on a terminal (see style.ts).
 */
export function formatEvent(event: ParleyEvent, style: Style = styleFor(process.stdout), handleOf: HandleOf = (id) => id): string {
  const author = `@${event.author}`;
  const sentence = terminalText(eventSentence(event, handleOf).slice(author.length), 'lines');
  const rest = event.type === 'message' ? sentence : style.tag(sentence);
  return `${style.time(terminalText(time(event.ts), 'one line'))} ${style.author(terminalText(author, 'one line'))}${rest}`;
}

/** Formats events after learning the handles they name (one /participants call at most). */
export async function formatAll(api: ParticipantList, events: ParleyEvent[]): Promise<string[]> {
  const book = handleBookFor(api);
  await book.learn(events);
  const style = styleFor(process.stdout);
  return events.map((event) => formatEvent(event, style, book.handleOf));
}

export function handleBookFor(api: ParticipantList): HandleBook {
  return new HandleBook(() => api.participants());
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** What `inbox` and `wait` did to what they showed: reading marks read; peeking does not. */
export function inboxFooter(count: number, peeked: boolean, more: boolean): string {
  const told = peeked ? `${plural(count, 'item')}, not marked read (peek)` : `${plural(count, 'item')}, marked read; --peek to look without marking`;
  if (!more) return told;
  return `${told}\n(more are waiting${peeked ? ': raise --limit to see them' : ': run "parley inbox" again'})`;
}

export interface InboxItemView {
  priority: string;
  reason: string;
  respondHint: boolean;
  thread: { name: string; with?: string };
  event: ParleyEvent;
}

/** Inbox items as lines; a request to answer says how ("parley respond 4F7K2Q STATUS"). */
export async function inboxLines(api: ParticipantList, items: InboxItemView[]): Promise<string[]> {
  const lines = await formatAll(api, items.map((i) => i.event));
  return items.map((item, n) => {
    const hint =
      item.event.type === 'request' && item.reason === 'request'
        ? `  ← parley respond ${shortRequestId((item.event.content as RequestContent).request_id)} Accepted|Rejected|Completed|Failed`
        : item.respondHint
          ? '  ← respond'
          : '';
    const where = `${item.priority.padEnd(6)} ${item.reason.padEnd(8)} ${item.thread.with ? `@${item.thread.with}` : item.thread.name}`;
    return `${terminalText(where, 'one line')}  ${lines[n]}${terminalText(hint, 'one line')}`;
  });
}
