import { describe, expect, it } from 'vitest';
import { testHubsClosedAfterEach } from '../helpers/hub.js';

const hubs = testHubsClosedAfterEach();

describe('event sealer and a rolled-back batch', () => {
  it('sealer - after a batch is rolled back, the next event that crosses names as its previous the last one stored, not one never stored', async () => {
    const t = await hubs.open();
    const alice = await t.hub.join({ handle: 'alice' });
    await alice.post({ thread: 'general', text: 'one' });
    const { db } = t.hub.internals.store;
    // The store refuses this one row: its batch is rolled back after the sealer gave it a seq.
    db.exec("CREATE TEMP TRIGGER refuse_boom BEFORE INSERT ON events WHEN NEW.content = 'boom' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
    await expect(alice.post({ thread: 'general', text: 'boom' })).rejects.toThrow();
    db.exec('DROP TRIGGER refuse_boom');
    await alice.post({ thread: 'general', text: 'three' });
    const rows = db.prepare("SELECT content, sender_seq, prev_seq FROM events WHERE type = 'message' ORDER BY seq").all() as Array<{ content: string; sender_seq: number; prev_seq: number | null }>;
    expect(rows.map((row) => row.content)).toEqual(['one', 'three']);
    // A seq was spent on the rolled-back one (harmless), but 'three' follows 'one': no hole for a linked hub to see.
    expect(rows[1]!.sender_seq).toBeGreaterThan(rows[0]!.sender_seq + 1);
    expect(rows[1]!.prev_seq).toBe(rows[0]!.sender_seq);
  });
});
