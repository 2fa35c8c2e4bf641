import { parseInput } from '../errors/parley-error.js';
import { ExportInputSchema, type ExportInput } from '../schema/inputs.js';
import type { ParleyEvent } from '../schema/event.js';
import { rowToEvent } from '../store/event-log.js';
import type { HubContext } from './context.js';
import { resolveFor, type Seat } from './seat.js';

/**
 * A thread's whole log for people to review (Markdown, Katra's "meeting
 * transcript") or for programs (JSON Lines, one event per line, as stored).
 */
const PAGE = 1000;

export function exportThread(ctx: HubContext, seat: Seat, input: ExportInput): { contentType: string; body: string } {
  const parsed = parseInput(ExportInputSchema, input);
  const thread = resolveFor(ctx, seat, parsed.thread);
  const events: ParleyEvent[] = [];
  for (let after = 0; ; ) {
    const rows = ctx.store.events.readAfter(thread.id, after, PAGE);
    for (const row of rows) events.push(rowToEvent(row));
    if (rows.length < PAGE) break;
    after = rows[rows.length - 1]?.seq ?? after;
  }
  if (parsed.format === 'jsonl') {
    return { contentType: 'application/x-ndjson', body: events.map((e) => JSON.stringify(e)).join('\n') + (events.length ? '\n' : '') };
  }
  const lines = [`# ${thread.kind === 'channel' ? '#' : ''}${thread.name}`, '', `Session "${seat.session.name}", ${events.length} events.`, ''];
  for (const event of events) lines.push(`**@${event.author}** · ${event.ts} · ${event.type}${event.to !== 'all' ? ' (direct)' : ''}`, '', describe(event), '');
  return { contentType: 'text/markdown; charset=utf-8', body: lines.join('\n') };
}

function describe(event: ParleyEvent): string {
  if (event.type === 'message') return String(event.content);
  const content = event.content as Record<string, unknown>;
  if (event.type === 'request') return `Request \`${String(content.intent)}\` (hop ${String(content.hop)}): ${JSON.stringify(content.params)}${content.text ? ` — ${String(content.text)}` : ''}`;
  if (event.type === 'response') return `Response **${String(content.status)}** to ${String(content.request_id)}${content.text ? ` — ${String(content.text)}` : ''}`;
  return `\`${JSON.stringify(content)}\``;
}
