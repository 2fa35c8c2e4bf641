import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * better-sqlite3 is a native addon compiled on install for the Node that runs
 * it. Its Database, Statement and iterator objects are freed by the garbage
 * collector; a binding built against headers whose node::ObjectWrap aborts
 * there (Node 24.19 and later, nodejs/node#65446) kills the hub at some later
 * collection, far from the query that made the garbage. This child makes that
 * garbage and allocates until the collector has run (a collection forced with
 * gc() would not show it: the abort comes from collections that allocation
 * triggers), so a bad build fails here by name instead of as a test worker
 * that "exited unexpectedly".
 */
const CHURN = `
import Database from 'better-sqlite3';
import { GCProfiler } from 'node:v8';
const profiler = new GCProfiler();
profiler.start();
const db = new Database(':memory:');
db.exec('CREATE TABLE t (n INTEGER)');
db.prepare('INSERT INTO t VALUES (1), (2), (3)').run();
let kept = [];
for (let i = 0; i < 20000; i += 1) {
  for (const row of db.prepare('SELECT n FROM t WHERE n > ?').iterate(i % 3)) kept.push(row);
  db.pragma('user_version', { simple: true });
  new Database(':memory:').close();
  kept.push(new Array(64).fill(i));
  if (kept.length > 512) kept = [];
}
db.close();
process.stdout.write(JSON.stringify({ collected: profiler.stop().statistics.length > 0 }));
`;

describe('native binding', () => {
  it('store - the SQLite binding survives the collection of its databases, statements and iterators', () => {
    const run = spawnSync(process.execPath, ['--max-semi-space-size=1', '--input-type=module', '-e', CHURN], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect({ signal: run.signal, status: run.status, stderr: run.stderr.slice(0, 400) }).toEqual({ signal: null, status: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual({ collected: true });
  });
});
