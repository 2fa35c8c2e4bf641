import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventRow } from '../../src/store/event-log.js';
import { openStore, type Store } from '../../src/store/store.js';

/**
 * The reads that show events (readAfter, shownPageAfter, pageBefore) read
 * rows as arrays and shape them: each of the eleven shown columns must land
 * under its own name, whatever its type, and nothing else come with them.
 */
let dir: string | undefined;
let store: Store | undefined;
afterEach(() => {
  store?.close();
  store = undefined;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function rowAt(seq: number): EventRow {
  return {
    seq,
    id: `01JDQ6Z5X9V2K8M3N4P5Q6R7S${seq}`,
    session_id: 'session-1',
    thread_id: 'thread-1',
    ts: 1_700_000_000_000 + seq,
    type: 'message',
    from_id: `author-${seq}`,
    author: `alice-${seq}`,
    to_id: seq === 2 ? 'bob-id' : 'all',
    content: `message ${seq} — naïve`,
    meta: seq === 2 ? JSON.stringify({ mentions: ['bob'] }) : null,
    sig: Buffer.alloc(64, seq),
    ttl_secs: 60,
    sender_seq: seq,
    sender_epoch: Buffer.alloc(16, 1),
    roster_version: 3,
    signed_ts: null,
    signed_meta: null,
    signed_thread: null,
    prev_seq: null,
  };
}

const SHOWN = ['seq', 'id', 'session_id', 'thread_id', 'ts', 'type', 'from_id', 'author', 'to_id', 'content', 'meta'] as const;
const shown = (row: EventRow) => Object.fromEntries(SHOWN.map((key) => [key, row[key]]));

describe('shown event rows', () => {
  it('shown rows - each column under its own name, in seq order, and only the shown ones', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-shown-rows-'));
    store = openStore({ file: path.join(dir, 'parley.db') });
    const rows = [1, 2, 3].map(rowAt);
    store.db.transaction(() => {
      for (const row of rows) store!.events.append(row);
    })();
    store.events.markCommitted(3);

    const after = store.events.readAfter('thread-1', 0, 10);
    expect(after).toEqual(rows.map(shown));
    expect(Object.keys(after[0]!)).toEqual([...SHOWN]);

    expect(store.events.shownPageAfter('thread-1', 1, 10, 1 << 20)).toEqual({ rows: rows.slice(1).map(shown), more: false });
    expect(store.events.shownPageAfter('thread-1', 0, 2, 1 << 20)).toEqual({ rows: rows.slice(0, 2).map(shown), more: true });
    expect(store.events.pageBefore('thread-1', 4, 2, 1 << 20)).toEqual({ rows: [rows[2]!, rows[1]!].map(shown), more: true });

    // Rows not yet committed stay unseen, as before.
    store.events.append(rowAt(4));
    expect(store.events.readAfter('thread-1', 3, 10)).toEqual([]);
    // A page cut short releases its statement: the same read runs again at once.
    expect(store.events.shownPageAfter('thread-1', 0, 1, 1 << 20).rows).toHaveLength(1);
    expect(store.events.shownPageAfter('thread-1', 0, 1, 1 << 20).rows).toHaveLength(1);
  });
});
