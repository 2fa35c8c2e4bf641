// Which threads an inbox read has to look at: per reader (a participant in a
// session), the threads that may hold events past the reader's cursor. A
// thread leaves the set only once a read has seen that nothing lies past the
// cursor up to the reader's watermark; events after the watermark put their
// threads back. So a reader that is up to date costs nothing per thread, and
// a read costs in proportion to what is new since the last one.
//
// Kept in memory (a new hub starts each reader with every thread of the
// session). Cursors only move forward, events past a watermark are found in
// the log, and a member's cursor starts at its join (saveMembership), so a
// thread the reader is not a member of may leave the set too.

import type { HubContext } from './context.js';
import type { ThreadRecord } from './records.js';

interface ReaderThreads {
  /** Every event up to this seq has been accounted for in `threads`. */
  watermark: number;
  threads: Set<string>;
}

const readersByStore = new WeakMap<object, Map<string, ReaderThreads>>();

export interface PendingThreads {
  /** The threads to look at, in the order the session has them. */
  threads: ThreadRecord[];
  /** Whether a read bounded as this one was may drop a thread (it saw everything up to the watermark). */
  mayDrop: boolean;
  /** Drops threads seen to hold nothing past the cursor. */
  drop(threadIds: Iterable<string>): void;
  /** Puts threads back (a cursor write that moved past them was rolled back). */
  restore(threadIds: Iterable<string>): void;
}

function readersOf(ctx: HubContext): Map<string, ReaderThreads> {
  let readers = readersByStore.get(ctx.store);
  if (!readers) {
    readers = new Map();
    readersByStore.set(ctx.store, readers);
  }
  return readers;
}

/** The threads of `sessionId` that may hold something past `participantId`'s cursors, up to `bound`. */
export function pendingThreads(ctx: HubContext, participantId: string, sessionId: string, bound: number): PendingThreads {
  const readers = readersOf(ctx);
  const key = `${participantId}\u0000${sessionId}`;
  let reader = readers.get(key);
  let mayDrop = true;
  if (!reader) {
    reader = { watermark: bound, threads: new Set(ctx.state.threadsOf(sessionId).map((t) => t.id)) };
    readers.set(key, reader);
  } else if (bound > reader.watermark) {
    for (const id of ctx.store.threads.touchedBetween(sessionId, reader.watermark, bound)) reader.threads.add(id);
    reader.watermark = bound;
  } else if (bound < reader.watermark) {
    // This read stops short of what the set already accounts for: it cannot prove a thread empty up to there.
    mayDrop = false;
  }
  const threads: ThreadRecord[] = [];
  for (const id of reader.threads) {
    const thread = ctx.state.threads.get(id);
    if (!thread || thread.sessionId !== sessionId || !thread.members.has(participantId)) reader.threads.delete(id);
    else threads.push(thread);
  }
  const held = reader;
  return {
    threads,
    mayDrop,
    drop: (ids) => {
      if (mayDrop) for (const id of ids) held.threads.delete(id);
    },
    restore: (ids) => {
      for (const id of ids) held.threads.add(id);
    },
  };
}
