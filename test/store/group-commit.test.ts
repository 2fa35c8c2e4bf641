import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { ParleyError } from '../../src/errors/parley-error.js';
import { openStore, type Store } from '../../src/store/store.js';
import { openTestHub, tempHome } from '../helpers/hub.js';

const cleanups: Array<() => void | Promise<unknown>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Fixture {
  store: Store;
  file: string;
  /** A second, read-only connection to the same file: it sees only committed data. */
  reader: Database.Database;
  insert: (key: string, value?: number) => void;
  /** Keys as the writing connection sees them (its own uncommitted writes included). */
  keys: () => string[];
  /** Keys as the second connection sees them. */
  committedKeys: () => string[];
  failures: unknown[];
}

function setup(): Fixture {
  const { home, cleanup } = tempHome('parley-commit-');
  cleanups.push(cleanup);
  const file = path.join(home, 'commit.db');
  const failures: unknown[] = [];
  const store = openStore({ file, onBatchFailed: (error) => failures.push(error) });
  cleanups.push(() => store.close());
  store.db.exec(`
    CREATE TABLE parent (id INTEGER PRIMARY KEY);
    CREATE TABLE t (
      k TEXT PRIMARY KEY,
      v INTEGER NOT NULL,
      -- Checked at COMMIT: lets a test make the commit itself fail.
      parent INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED
    );
  `);
  const reader = new Database(file, { readonly: true });
  cleanups.push(() => {
    reader.close();
  });
  const insertStmt = store.db.prepare('INSERT INTO t (k, v) VALUES (?, ?)');
  const readKeys = (db: Database.Database) => (): string[] =>
    (db.prepare('SELECT k FROM t ORDER BY k').all() as Array<{ k: string }>).map((row) => row.k);
  return {
    store,
    file,
    reader,
    insert: (key, value = 0) => void insertStmt.run(key, value),
    keys: readKeys(store.db),
    committedKeys: readKeys(reader),
    failures,
  };
}

describe('group commit', () => {
  it('group commit - writes submitted in one turn of the event loop share one batch and all resolve', async () => {
    const { store, insert, committedKeys } = setup();
    const writes = store.writes;
    expect(writes.stats).toEqual({ batches: 0, writes: 0 });

    const n = 25;
    const results = Array.from({ length: n }, (_, i) => writes.write(() => {
      insert(`k${String(i).padStart(2, '0')}`, i);
      return i * 10;
    }));
    expect(results.map((r) => r.value)).toEqual(Array.from({ length: n }, (_, i) => i * 10));
    expect(writes.pending).toBe(n);
    expect(writes.stats).toEqual({ batches: 0, writes: 0 });

    await Promise.all(results.map((r) => r.committed));
    expect(writes.stats).toEqual({ batches: 1, writes: n });
    expect(writes.pending).toBe(0);
    expect(committedKeys()).toHaveLength(n);

    // A later turn makes a second batch.
    const later = [writes.write(() => insert('later-a')), writes.write(() => insert('later-b'))];
    await Promise.all(later.map((r) => r.committed));
    expect(writes.stats).toEqual({ batches: 2, writes: n + 2 });
    expect(committedKeys()).toHaveLength(n + 2);
  });

  it('group commit - a before-commit hook writes into the batch that is committing, not a batch of its own', async () => {
    const { store, insert, committedKeys } = setup();
    const late: string[] = [];
    const hookWrites: Array<Promise<void>> = [];
    store.writes.beforeCommit(() => {
      for (const key of late.splice(0)) hookWrites.push(store.writes.write(() => insert(key)).committed);
    });
    late.push('late-1', 'late-2');
    const first = store.writes.write(() => insert('first'));
    await first.committed;
    await Promise.all(hookWrites);
    expect(committedKeys()).toEqual(['first', 'late-1', 'late-2']);
    expect(store.writes.stats).toEqual({ batches: 1, writes: 3 });

    // A hook with nothing to write leaves the next batch as it is.
    await store.writes.write(() => insert('second')).committed;
    expect(store.writes.stats).toEqual({ batches: 2, writes: 4 });
  });

  it('group commit - after-commit callbacks run after COMMIT, in submission order, with the write value', async () => {
    const { store, insert, reader } = setup();
    const seen: Array<{ key: string; value: string; visibleToReader: boolean; pendingAtCallback: number }> = [];
    const readerGet = reader.prepare('SELECT k FROM t WHERE k = ?');
    const keys = ['c', 'a', 'e', 'b', 'd'];
    const results = keys.map((key) =>
      store.writes.write(
        () => {
          insert(key);
          return `value-${key}`;
        },
        (value) => {
          seen.push({ key, value, visibleToReader: readerGet.get(key) !== undefined, pendingAtCallback: store.writes.pending });
        },
      ),
    );
    // Nothing has run yet: the batch is still open.
    expect(seen).toEqual([]);
    await Promise.all(results.map((r) => r.committed));
    expect(seen).toEqual(keys.map((key) => ({ key, value: `value-${key}`, visibleToReader: true, pendingAtCallback: 0 })));
  });

  it('group commit - a write that throws rolls back its whole batch: the others are rejected, nothing is kept', async () => {
    const { store, insert, keys, committedKeys, failures } = setup();
    const calls: string[] = [];
    const first = store.writes.write(
      () => insert('one', 1),
      () => calls.push('one'),
    );
    const firstOutcome = first.committed.then(
      () => 'resolved',
      (error: unknown) => (error as ParleyError).code,
    );
    let thrown: unknown;
    try {
      store.writes.write(
        () => {
          insert('two', 2);
          throw new Error('write two fails after inserting');
        },
        () => calls.push('two'),
      );
    } catch (error) {
      thrown = error;
    }
    expect((thrown as Error).message).toBe('write two fails after inserting');
    expect(await firstOutcome).toBe('INTERNAL');
    expect(keys()).toEqual([]);
    expect(failures).toHaveLength(1);
    // The next write starts a new batch and is stored.
    const third = store.writes.write(
      () => insert('three', 3),
      () => calls.push('three'),
    );
    await third.committed;
    expect(committedKeys()).toEqual(['three']);
    expect(calls).toEqual(['three']);
    expect(store.writes.stats).toEqual({ batches: 1, writes: 1 });
    // A constraint error inside a write is handled the same way.
    expect(() => store.writes.write(() => insert('three', 99))).toThrow(/UNIQUE constraint failed/);
    expect(committedKeys()).toEqual(['three']);
  });

  it('group commit - an owner whose reload throws still gets every write settled, and nothing escapes', async () => {
    const { home, cleanup } = tempHome('parley-commit-');
    cleanups.push(cleanup);
    const reported: unknown[] = [];
    const store = openStore({
      file: path.join(home, 'c.db'),
      onBatchFailed: () => {
        throw new Error('reload failed too');
      },
      onCallbackFailed: (error) => reported.push(error),
    });
    cleanups.push(() => store.close());
    store.db.exec('CREATE TABLE t (k TEXT PRIMARY KEY)');
    const insert = store.db.prepare('INSERT INTO t (k) VALUES (?)');
    const first = store.writes.write(() => insert.run('a'));
    const outcome = first.committed.then(
      () => 'resolved',
      (error: unknown) => (error as ParleyError).code,
    );
    expect(() =>
      store.writes.write(() => {
        throw new Error('write fails');
      }),
    ).toThrow('write fails');
    expect(await outcome).toBe('INTERNAL');
    expect((reported[0] as Error).message).toBe('reload failed too');
  });

  it('group commit - a second connection sees nothing of a batch before its commit', async () => {
    const { store, insert, keys, committedKeys } = setup();
    const before = store.writes.write(() => insert('visible-later'));
    expect(keys()).toEqual(['visible-later']);
    expect(committedKeys()).toEqual([]);
    // Even after other work in the same turn.
    await Promise.resolve();
    expect(committedKeys()).toEqual([]);

    await before.committed;
    expect(committedKeys()).toEqual(['visible-later']);
  });

  it('group commit - flush commits the open batch at once, and is a no-op when nothing is open', async () => {
    const { store, insert, committedKeys } = setup();
    store.writes.flush();
    expect(store.writes.stats).toEqual({ batches: 0, writes: 0 });
    let callbackRan = false;
    const write = store.writes.write(
      () => insert('flushed'),
      () => {
        callbackRan = true;
      },
    );
    store.writes.flush();
    expect(callbackRan).toBe(true);
    expect(committedKeys()).toEqual(['flushed']);
    expect(store.writes.stats).toEqual({ batches: 1, writes: 1 });
    await write.committed;
  });

  it('group commit - when the COMMIT fails every write of the batch is rejected, nothing is kept and no callback runs', async () => {
    const { store, insert, committedKeys, failures } = setup();
    const calls: string[] = [];
    const good = store.writes.write(
      () => insert('good'),
      () => calls.push('good'),
    );
    // Violates a deferred foreign key: the write itself succeeds, the COMMIT fails.
    const bad = store.writes.write(
      () => void store.db.prepare("INSERT INTO t (k, v, parent) VALUES ('bad', 0, 42)").run(),
      () => calls.push('bad'),
    );
    const outcomes = await Promise.allSettled([good.committed, bad.committed]);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      const reason = (outcome as PromiseRejectedResult).reason as ParleyError;
      expect(reason).toBeInstanceOf(ParleyError);
      expect(reason.code).toBe('INTERNAL');
      expect(reason.message).toMatch(/FOREIGN KEY constraint failed/);
      expect(reason.message).toMatch(/retry/);
    }
    expect(calls).toEqual([]);
    expect(failures).toHaveLength(1);
    expect(committedKeys()).toEqual([]);
    expect(store.db.inTransaction).toBe(false);
    expect(store.writes.stats).toEqual({ batches: 0, writes: 0 });

    // The next batch works normally.
    const next = store.writes.write(
      () => insert('next'),
      () => calls.push('next'),
    );
    await next.committed;
    expect(committedKeys()).toEqual(['next']);
    expect(calls).toEqual(['next']);
  });

  it('group commit - after close, writes are refused with HUB_CLOSED and pending ones were committed', async () => {
    const { store, insert, committedKeys } = setup();
    const pending = store.writes.write(() => insert('last'));
    store.writes.close();
    await pending.committed;
    expect(committedKeys()).toEqual(['last']);
    let thrown: unknown;
    try {
      store.writes.write(() => insert('too-late'));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ParleyError);
    expect((thrown as ParleyError).code).toBe('HUB_CLOSED');
    expect(committedKeys()).toEqual(['last']);
  });

  it('group commit - concurrent posts through a hub share batches and are all durable when they resolve', async () => {
    const { hub, close } = await openTestHub();
    cleanups.push(close);
    const alice = await hub.join({ handle: 'alice' });
    const file = hub.storeFile;
    const reader = new Database(file, { readonly: true });
    cleanups.push(() => {
      reader.close();
    });
    const byId = reader.prepare('SELECT seq, content FROM events WHERE id = ?');

    const before = hub.stats();
    const n = 40;
    const posted = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const result = await alice.post({ thread: 'general', text: `message ${i}` });
        // Resolved means committed: another connection already sees it.
        const row = byId.get(result.id) as { seq: number; content: string } | undefined;
        return { result, row };
      }),
    );
    for (const [i, { result, row }] of posted.entries()) {
      expect(row).toEqual({ seq: result.seq, content: `message ${i}` });
    }
    const after = hub.stats();
    expect(after.writes - before.writes).toBe(n);
    // Far fewer commits than writes.
    expect(after.batches - before.batches).toBeGreaterThanOrEqual(1);
    expect(after.batches - before.batches).toBeLessThan(n);
    const seqs = posted.map((p) => p.result.seq).sort((a, b) => a - b);
    expect(new Set(seqs).size).toBe(n);
    expect(seqs[n - 1]).toBe(after.lastSeq);
  });
});
