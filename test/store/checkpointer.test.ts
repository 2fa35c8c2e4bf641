import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store, type StoreOptions } from '../../src/store/store.js';

const cleanups: Array<() => void> = [];

afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function tempStore(options: Omit<StoreOptions, 'file'> = {}): { store: Store; file: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-checkpoint-'));
  const file = path.join(dir, 'parley.db');
  const store = openStore({ file, ...options });
  store.db.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  cleanups.push(() => {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { store, file };
}

const ROW = 'x'.repeat(1000);

/** One commit of `rows` 1 KB rows, through the group commit as every write goes. */
function commitRows(store: Store, rows: number): Promise<void> {
  const insert = store.db.prepare('INSERT INTO filler (body) VALUES (?)');
  const { committed } = store.writes.write(() => {
    for (let i = 0; i < rows; i++) insert.run(ROW);
  });
  store.writes.flush();
  return committed;
}

function walBytes(file: string): number {
  return fs.statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0;
}

describe('the WAL checkpointer', () => {
  it('checkpoint - the writer never checkpoints in its commit; the worker keeps the WAL bounded', async () => {
    const limit = 512 * 1024;
    const { store, file } = tempStore({ synchronous: 'normal', checkpoint: { walSizeLimitBytes: limit, intervalMs: 1 } });
    expect(store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    let largest = 0;
    // 16 MB written in 80 commits of 200 KB: without checkpoints the WAL would hold all of it.
    for (let i = 0; i < 80; i++) {
      await commitRows(store, 200);
      if (i % 4 === 3) await store.checkpointer.nextPass();
      largest = Math.max(largest, walBytes(file));
    }
    expect(store.checkpointer.passes).toBeGreaterThan(0);
    expect(store.checkpointer.writerCheckpoints).toBe(0);
    // At most the limit it is cut back to, plus the commits since the last pass (4 of about 210 KB each).
    expect(largest).toBeLessThan(limit + 4 * 260 * 1024);
    expect((store.db.prepare('SELECT COUNT(*) AS n FROM filler').get() as { n: number }).n).toBe(16_000);
  });

  it('checkpoint - the worker starts and checkpoints on its own once the WAL passes its threshold; the WAL stays bounded however long the writes go on', async () => {
    // The fallback is large enough that the worker, looking every 20 ms, sees the WAL past its threshold before
    // the writer has to checkpoint itself, even for a writer of 100 KB commits back to back (some 3 MB per look here).
    const fallback = 16 * 1024 * 1024;
    const { store, file } = tempStore({ synchronous: 'normal', checkpoint: { thresholdPages: 256, walSizeLimitBytes: 0, fallbackBytes: fallback } });
    let largest = 0;
    let commits = 0;
    // Commits of 100 KB back to back (each wakes the worker), 120 MB at least, until the worker has made passes and
    // more than twice the largest WAL seen was written (a WAL that grew with the writes would never let that happen).
    while (commits < 4000 && (commits < 1200 || store.checkpointer.passes < 3 || commits * 100 * 1000 <= 2 * largest)) {
      await commitRows(store, 100);
      commits += 1;
      largest = Math.max(largest, walBytes(file));
    }
    expect(store.checkpointer.passes).toBeGreaterThanOrEqual(3);
    // Twice the fallback size (the writer's FULL checkpoint) on a quiet machine; on a loaded one the worker's pass can
    // hold that checkpoint up while commits go on (40 MB seen with both cores busy). Bounded all the same, and well
    // below what was written: the WAL does not grow with the writes.
    expect(largest).toBeLessThan(4 * fallback);
    expect(commits * 100 * 1000).toBeGreaterThan(2 * largest);
  });

  it('checkpoint - past its fallback size the writer checkpoints itself, so a stalled worker cannot let the WAL grow', async () => {
    const never = new URL('data:text/javascript,setInterval(() => {}, 1000)');
    const { store, file } = tempStore({ checkpoint: { walSizeLimitBytes: 0, fallbackBytes: 1024 * 1024, workerUrl: never } });
    for (let i = 0; i < 40; i++) await commitRows(store, 200);
    expect(store.checkpointer.passes).toBe(0);
    expect(store.checkpointer.writerCheckpoints).toBeGreaterThan(0);
    expect(walBytes(file)).toBeLessThan(2 * 1024 * 1024);
  });

  it('checkpoint - a worker that fails hands checkpoints back to the writer connection', async () => {
    const failing = new URL('data:text/javascript,throw new Error("cannot open the store")');
    const failures: unknown[] = [];
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-checkpoint-'));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const store = openStore({ file: path.join(dir, 'parley.db'), onCallbackFailed: (error) => failures.push(error), checkpoint: { workerUrl: failing } });
    cleanups.push(() => store.close());
    store.db.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    await commitRows(store, 1);
    // Asked for a pass, the worker starts (and fails).
    await store.checkpointer.nextPass();
    await new Promise<void>((resolve) => {
      const check = (): void => {
        if (failures.length > 0) resolve();
        else setImmediate(check);
      };
      check();
    });
    expect(String(failures[0])).toContain('cannot open the store');
    expect(store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
  });

  it('checkpoint - closing while the worker is inside a pass stops it at once (it does not sleep through the stop)', async () => {
    // A pass of a large WAL lasts long enough to close in the middle of it; the worker then sleeps on the commit count,
    // and only a stop that moves that count wakes it. Waiting 3 s at most, it must be gone by then.
    const { store } = tempStore({ synchronous: 'normal', checkpoint: { thresholdPages: 1_000_000_000, closeWaitMs: 3_000 } });
    await commitRows(store, 10);
    await store.checkpointer.nextPass();
    for (let i = 0; i < 60; i++) await commitRows(store, 500);
    const pass = store.checkpointer.nextPass();
    await new Promise<void>((resolve) => {
      const check = (): void => {
        if (store.checkpointer.inPass) resolve();
        else setImmediate(check);
      };
      check();
    });
    store.checkpointer.stop();
    expect(store.checkpointer.workerRunning).toBe(false);
    await pass;
    expect((store.db.prepare('SELECT COUNT(*) AS n FROM filler').get() as { n: number }).n).toBe(30_010);
  });

  it('checkpoint - closing stops the worker first and leaves no WAL behind, with every row kept', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-checkpoint-'));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'parley.db');
    const store = openStore({ file });
    store.db.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    for (let i = 0; i < 10; i++) await commitRows(store, 100);
    await store.checkpointer.nextPass();
    await commitRows(store, 100);
    store.close();
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
    const again = openStore({ file });
    try {
      expect((again.db.prepare('SELECT COUNT(*) AS n FROM filler').get() as { n: number }).n).toBe(1100);
      expect(again.integrityCheck()).toBe('ok');
    } finally {
      again.close();
    }
  });
});
