import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { tempDir } from './core.js';

/** Raw better-sqlite3 on the same machine, in WAL mode: the anchor for ratios. */
export function rawSqlite(synchronous: 'FULL' | 'NORMAL'): { singleRowTxPerSecond: number; batchedRowsPerSecond: number } {
  const dir = tempDir('parley-bench-raw-');
  const db = new Database(path.join(dir, 'raw.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${synchronous}`);
    db.exec('CREATE TABLE e (seq INTEGER PRIMARY KEY, id TEXT, thread TEXT, content TEXT)');
    const insert = db.prepare('INSERT INTO e VALUES (?, ?, ?, ?)');
    const text = 'x'.repeat(1024);
    const n = 3000;
    let start = performance.now();
    for (let i = 0; i < n; i++) insert.run(i + 1, `id${i}`, 't', text);
    const single = n / ((performance.now() - start) / 1000);
    const batch = db.transaction((from: number) => {
      for (let i = from; i < from + 1000; i++) insert.run(i + 1, `id${i}`, 't', text);
    });
    start = performance.now();
    for (let k = 0; k < 30; k++) batch(100_000 + k * 1000);
    const batched = 30_000 / ((performance.now() - start) / 1000);
    return { singleRowTxPerSecond: single, batchedRowsPerSecond: batched };
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
