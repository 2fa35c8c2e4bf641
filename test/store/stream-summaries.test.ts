import { describe, expect, it } from 'vitest';
import type { Actor } from '../../src/hub/index.js';
import { testHubsClosedAfterEach, type TestHub } from '../helpers/hub.js';

const hubs = testHubsClosedAfterEach();

/** The streams of a thread as the log holds them, counted from its rows (what the summaries kept in memory must equal). */
function fromLog(t: TestHub, threadId: string): Array<Record<string, unknown>> {
  const rows = t.hub.internals.store.db
    .prepare(
      `SELECT from_id, MIN(sender_seq) AS min_seq, MAX(sender_seq) AS max_seq, COUNT(*) AS held, MIN(seq) AS first_log_seq
       FROM events WHERE thread_id = ? AND sender_seq IS NOT NULL AND sender_epoch IS NOT NULL AND type IN ('message', 'request', 'response', 'control')
       GROUP BY from_id, sender_epoch ORDER BY from_id`,
    )
    .all(threadId) as Array<Record<string, unknown>>;
  return rows;
}

function kept(t: TestHub, threadId: string): Array<Record<string, unknown>> {
  return t.hub.internals.store.history
    .streams([threadId])
    .map(({ from_id, min_seq, max_seq, held, first_log_seq }) => ({ from_id, min_seq, max_seq, held, first_log_seq }))
    .sort((a, b) => a.from_id.localeCompare(b.from_id));
}

async function post(actor: Actor, thread: string, n: number, from = 0): Promise<void> {
  for (let i = from; i < from + n; i++) await actor.post({ thread, text: `message ${i}` });
}

describe('stream summaries', () => {
  it('streams - the streams kept in memory equal the log as events are written, folded in the background, and pruned by retention', async () => {
    const t = await hubs.open({ config: { retention: { messages: 15 } } });
    const alice = await t.hub.join({ handle: 'alice' });
    const bob = await t.hub.join({ handle: 'bob' });
    await post(alice, 'general', 4);
    const general = [...t.hub.internals.ctx.state.threads.values()].find((thread) => thread.name === 'general')!;
    // Read from the log when first asked for.
    expect(kept(t, general.id)).toEqual(fromLog(t, general.id));
    expect(kept(t, general.id).map((s) => s.held)).toEqual([4]);

    // Written after: folded in, in chunks and all at once when asked for.
    await post(bob, 'general', 6);
    await post(alice, 'general', 5, 4);
    expect(t.hub.internals.store.history.foldStreams()).toBe(true);
    await post(bob, 'general', 3, 6);
    expect(kept(t, general.id)).toEqual(fromLog(t, general.id));
    expect(kept(t, general.id).map((s) => s.held).sort()).toEqual([9, 9]);
    expect(t.hub.internals.store.history.streams([general.id]).every((s) => s.ordered)).toBe(true);

    // A batch the store rolls back (a row it refuses) leaves nothing behind in them.
    const { db } = t.hub.internals.store;
    db.exec("CREATE TEMP TRIGGER refuse_boom BEFORE INSERT ON events WHEN NEW.content = 'boom' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
    await expect(alice.post({ thread: 'general', text: 'boom' })).rejects.toThrow();
    db.exec('DROP TRIGGER refuse_boom');
    expect(kept(t, general.id)).toEqual(fromLog(t, general.id));

    // Retention keeps the newest 15 events of the thread: the pruned thread is read again.
    const report = await t.hub.prune();
    expect(report.events).toBeGreaterThan(0);
    const after = kept(t, general.id);
    expect(after).toEqual(fromLog(t, general.id));
    expect(after.reduce((sum, s) => sum + (s.held as number), 0)).toBeLessThan(18);
  });
});
