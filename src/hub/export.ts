import type { z } from 'zod';
import type { ExportInputSchema } from '../schema/inputs.js';
import type { ParleyEvent } from '../schema/event.js';
import { describeEvent, type HandleOf } from '../format/event-text.js';
import { rowToEvent } from '../store/event-log.js';
import { JsonLinesEncoder } from './export-jsonl.js';
import { rowPages, type ThreadExport } from './export-pages.js';
import { signedExport } from './signed-export.js';
import type { HubContext } from './context.js';
import type { Admitted } from './gate.js';
import type { ThreadRecord } from './records.js';

/**
 * A thread's whole log for people to review (Markdown, a "meeting
 * transcript") or for programs (JSON Lines, one event per line, as stored).
 *
 * Exports stream a page at a time (see export-pages.ts). An export is a
 * snapshot: it holds the events committed when it started.
 */
export function exportThread(ctx: HubContext, { caller, thread, input: parsed }: Admitted<z.output<typeof ExportInputSchema>, ThreadRecord>): ThreadExport {
  const upTo = ctx.store.events.visibleUpTo;
  if (parsed.format === 'signed') return signedExport(ctx, caller, thread, upTo);
  async function* pages(): AsyncGenerator<ParleyEvent[], void, undefined> {
    for await (const rows of rowPages(ctx, caller, thread, upTo)) yield rows.map(rowToEvent);
  }
  if (parsed.format === 'jsonl') {
    return {
      contentType: 'application/x-ndjson',
      chunks: (async function* () {
        // Rows straight to bytes (see export-jsonl.ts): the same lines, far less garbage.
        const encoder = new JsonLinesEncoder();
        for await (const rows of rowPages(ctx, caller, thread, upTo)) yield encoder.page(rows);
      })(),
    };
  }
  const count = ctx.store.events.countInThread(thread.id, upTo);
  const handleOf: HandleOf = (id) => ctx.state.participants.get(id)?.handle ?? id;
  return {
    contentType: 'text/markdown; charset=utf-8',
    chunks: (async function* () {
      yield [`# ${thread.kind === 'channel' ? '#' : ''}${thread.name}`, '', `Session "${caller.session.name}", ${count} events.`, '', ''].join('\n');
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
