import { spawnSync } from 'node:child_process';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate } from '../../src/store/migrations.js';
import { openTestHub, tempHome } from '../helpers/hub.js';
import { BIN, childEnv } from '../helpers/serve.js';

/**
 * `parley doctor` on retention: the store's size and free pages, what the
 * next retention pass will free, and (for a store made before the file gave
 * space back) how to reclaim it, which `doctor --vacuum` does.
 */
let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});

const HOUR = 3_600_000;

interface Report {
  checks: Array<{ name: string; ok: boolean; detail: string }>;
}

function doctor(home: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  // No hub answers at this URL: only the store checks matter here.
  return spawnSync(process.execPath, [BIN, 'doctor', ...args], { env: childEnv(home, { PARLEY_URL: 'http://127.0.0.1:9' }), encoding: 'utf8', timeout: 20_000 });
}

function check(home: string, name: string): string {
  const report = JSON.parse(doctor(home, '--json').stdout) as Report;
  return report.checks.find((c) => c.name === name)?.detail ?? '';
}

/** A store with 40 messages posted 100 hours ago and 2 just now (Date.now: doctor's clock). */
async function storeWithHistory(home: string): Promise<void> {
  let now = Date.now() - 100 * HOUR;
  const t = await openTestHub({ home, now: () => now, config: { chat: { limits: { writesPerMinute: 0 } }, retention: { intervalMs: 86_400_000 } } });
  const alice = await t.hub.join({ handle: 'alice', session: 's' });
  for (let i = 0; i < 40; i += 1) await alice.post({ thread: 'general', text: `an old message number ${i} ${'x'.repeat(1000)}` });
  now = Date.now();
  await alice.post({ thread: 'general', text: 'recent' });
  await alice.post({ thread: 'general', text: 'newest' });
  await t.hub.close();
}

describe('doctor and retention', () => {
  it('doctor - shows the store size and free pages, and what retention will free now', async () => {
    const { home, cleanup } = tempHome();
    cleanups.push(cleanup);
    await storeWithHistory(home);
    expect(check(home, 'store')).toMatch(/integrity ok, schema v\d+, [\d.]+ KiB \([\d.]+ (B|KiB) of it free pages\)/);
    // The 40 old messages go; the creation event and the recent ones stay.
    expect(check(home, 'retention')).toMatch(/^will free 40 events \(~[\d.]+ KiB\) in 1 thread now \(keeps 72 h or the 10000 newest events/);

    const t = await openTestHub({ home, config: { retention: { intervalMs: 86_400_000 } } });
    expect((await t.hub.prune()).events).toBe(40);
    await t.hub.close();
    expect(check(home, 'retention')).toMatch(/^nothing to free now/);
  });

  it('doctor - an older store says how to reclaim space, and --vacuum makes it give space back', async () => {
    const { home, cleanup } = tempHome();
    cleanups.push(cleanup);
    // A store without auto_vacuum, as earlier versions made them (migrating one turns it on, so it is undone here by hand).
    const db = new Database(path.join(home, 'parley.db'));
    db.pragma('journal_mode = WAL');
    migrate(db);
    db.pragma('auto_vacuum = NONE');
    db.exec('VACUUM');
    db.close();
    await storeWithHistory(home);
    const t = await openTestHub({ home, config: { retention: { intervalMs: 86_400_000 } } });
    expect((await t.hub.prune()).pagesFreed).toBe(0);
    await t.hub.close();
    expect(check(home, 'retention')).toContain('run "parley doctor --vacuum" once');
    // The pruned pages stay in the file, free.
    expect(check(home, 'store')).toMatch(/\([\d.]+ KiB of it free pages\)/);

    const vacuum = doctor(home, '--vacuum');
    expect(vacuum.stderr).toBe('');
    expect(vacuum.stdout).toMatch(/^vacuumed .*parley\.db: [\d.]+ KiB -> [\d.]+ KiB/);
    expect(vacuum.status).toBe(0);
    expect(check(home, 'store')).toContain('(0 B of it free pages)');
    expect(check(home, 'retention')).not.toContain('--vacuum');
  });
});
