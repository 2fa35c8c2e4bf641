import { parseInput } from '../errors/parley-error.js';
import { ExportInputSchema, type ExportInput } from '../schema/inputs.js';
import type { ParleyEvent } from '../schema/event.js';
import { describeEvent, type HandleOf } from '../format/event-text.js';
import { rowToEvent, type EventRow } from '../store/event-log.js';
import { signedExport } from './signed-export.js';
import type { ThreadRecord } from './state.js';
import type { HubContext } from './context.js';
import { assertMayRead } from './channel-access.js';
import { resolveFor, type Seat } from './seat.js';

/**
 * A thread's whole log for people to review (Markdown, Katra's "meeting
 * transcript") or for programs (JSON Lines, one event per line, as stored).
 *
 * Exports stream: the log is read a page at a time and each page is handed
 * on before the next is read, so memory stays flat whatever the thread's
 * size. Each page is one heavy read of the participant's (see ReadGate), so
 * writers and the participant's other reads go between pages. An export is a snapshot:
 * it holds the events committed when it started.
 */
const PAGE_ROWS = 200;
const PAGE_BYTES = 64 * 1024;

export interface ThreadExport {
  contentType: string;
  /** The document, in pieces; a consumer that stops early ends the read (return()). */
  chunks: AsyncGenerator<string, void, undefined>;
}

/** The thread's stored rows up to `upTo`, a bounded page at a time, each page one read of the participant's. */
export async function* rowPages(ctx: HubContext, seat: Seat, thread: ThreadRecord, upTo: number): AsyncGenerator<EventRow[], void, undefined> {
  for (let after = 0; ; ) {
    const page = await ctx.reads.run(seat.participant.id, () => ctx.store.events.pageAfter(thread.id, after, PAGE_ROWS, PAGE_BYTES, upTo + 1));
    if (page.rows.length > 0) yield page.rows;
    if (!page.more) return;
    after = page.rows[page.rows.length - 1]?.seq ?? after;
  }
}

export function exportThread(ctx: HubContext, seat: Seat, input: ExportInput): ThreadExport {
  const parsed = parseInput(ExportInputSchema, input);
  const thread = resolveFor(ctx, seat, parsed.thread);
  assertMayRead(ctx, seat, thread);
  const upTo = ctx.store.events.visibleUpTo;
  if (parsed.format === 'signed') return signedExport(ctx, seat, thread, upTo);
  async function* pages(): AsyncGenerator<ParleyEvent[], void, undefined> {
    for await (const rows of rowPages(ctx, seat, thread, upTo)) yield rows.map(rowToEvent);
  }
  if (parsed.format === 'jsonl') {
    return {
      contentType: 'application/x-ndjson',
      chunks: (async function* () {
        for await (const events of pages()) yield events.map((e) => `${JSON.stringify(e)}\n`).join('');
      })(),
    };
  }
  const count = ctx.store.events.countInThread(thread.id, upTo);
  const handleOf: HandleOf = (id) => ctx.state.participants.get(id)?.handle ?? id;
  return {
    contentType: 'text/markdown; charset=utf-8',
    chunks: (async function* () {
      yield [`# ${thread.kind === 'channel' ? '#' : ''}${thread.name}`, '', `Session "${seat.session.name}", ${count} events.`, '', ''].join('\n');
      for await (const events of pages()) {
        yield events.map((event) => transcriptEntry(event, handleOf)).join('');
      }
    })(),
  };
}

/** A message under its author and time; anything else (a request, a rename, a mute) as one sentence. */
function transcriptEntry(event: ParleyEvent, handleOf: HandleOf): string {
  const direct = event.to !== 'all' ? ' (direct)' : '';
  if (event.type === 'message') return `**@${event.author}** · ${event.ts} · message${direct}\n\n${String(event.content)}\n\n`;
  return `**@${event.author}** ${describeEvent(event, handleOf)} · ${event.ts}${direct}\n\n`;
}
