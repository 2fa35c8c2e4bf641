import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { rowToEvent, type EventRow } from '../../src/store/event-log.js';
import { joinOver } from '../helpers/serve.js';
import { servedHubsPerTest } from '../helpers/served-hub.js';

const served = servedHubsPerTest();

interface Acknowledged {
  id: string;
  seq: number;
  text: string;
}

describe('http shutdown', () => {
  it('shutdown - SIGTERM under load: the hub exits 0 and every acknowledged post is in the store', async () => {
    const home = served.home();
    // Load on purpose: the write limit is off.
    const { hub } = await served.serve(home, { env: { PARLEY_CHAT_LIMITS_WRITES_PER_MINUTE: '0' } });
    const token = await joinOver(hub, { handle: 'poster', session: 'proj' });
    const acknowledged: Acknowledged[] = [];
    const refusedStatuses = new Set<number>();
    let failedAfterSignal = 0;
    let signalled = false;
    let exitCode: Promise<number | null> | undefined;
    const SIGNAL_AFTER = 300;

    // Sixteen clients post as fast as they can; the hub gets SIGTERM in the middle of it.
    await Promise.all(
      Array.from({ length: 16 }, async (_, worker) => {
        for (let i = 0; ; i++) {
          const text = `worker ${worker} post ${i}`;
          try {
            const res = await fetch(`${hub.url}/api/v1/threads/general/messages`, {
              method: 'POST',
              headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
              body: JSON.stringify({ text }),
            });
            const body = (await res.json()) as { id?: string; seq?: number; error?: { code: string } };
            if (res.status === 201) acknowledged.push({ id: body.id!, seq: body.seq!, text });
            else refusedStatuses.add(res.status);
          } catch {
            // The hub is gone: nothing more can be acknowledged.
            if (signalled) {
              failedAfterSignal++;
              return;
            }
            throw new Error(`a post failed before the hub was signalled (${text})`);
          }
          if (!signalled && acknowledged.length >= SIGNAL_AFTER) {
            signalled = true;
            exitCode = hub.stop('SIGTERM');
          }
        }
      }),
    );
    expect(await exitCode).toBe(0);
    expect(hub.output()).toContain('the store is closed cleanly');
    expect(acknowledged.length).toBeGreaterThanOrEqual(SIGNAL_AFTER);
    // Load went on through the shutdown: later posts were refused or found the hub gone.
    expect(failedAfterSignal + refusedStatuses.size).toBeGreaterThan(0);
    for (const status of refusedStatuses) expect(status).toBe(503);

    const db = new Database(path.join(home, 'parley.db'), { readonly: true, fileMustExist: true });
    try {
      const byId = db.prepare('SELECT * FROM events WHERE id = ?');
      const missing = acknowledged.filter((post) => {
        const row = byId.get(post.id) as EventRow | undefined;
        return !row || row.seq !== post.seq || rowToEvent(row).content !== post.text;
      });
      expect(missing).toEqual([]);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  });
});
