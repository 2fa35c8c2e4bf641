// How every export reads its thread: the log a page at a time, each page
// handed on before the next is read, so memory stays flat whatever the
// thread's size. Each page is one heavy read of the participant's (see
// ReadGate), so writers and the participant's other reads go between pages.

import type { EventRow } from '../store/event-log.js';
import type { HubContext } from './context.js';
import type { Caller } from './records.js';
import type { ThreadRecord } from './records.js';

const PAGE_ROWS = 200;
const PAGE_BYTES = 64 * 1024;

export interface ThreadExport {
  contentType: string;
  /** The document, in pieces (text, or UTF-8 bytes); a consumer that stops early ends the read (return()). */
  chunks: AsyncGenerator<string | Uint8Array, void, undefined>;
}

/** The thread's stored rows up to `upTo`, a bounded page at a time, each page one read of the participant's. */
export async function* rowPages(ctx: HubContext, caller: Caller, thread: ThreadRecord, upTo: number): AsyncGenerator<EventRow[], void, undefined> {
  for (let after = 0; ; ) {
    const page = await ctx.reads.run(caller.participant.id, () => ctx.store.events.pageAfter(thread.id, after, PAGE_ROWS, PAGE_BYTES, upTo + 1));
    if (page.rows.length > 0) yield page.rows;
    if (!page.more) return;
    after = page.rows[page.rows.length - 1]?.seq ?? after;
  }
}
