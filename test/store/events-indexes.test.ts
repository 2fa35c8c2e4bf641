import Database from 'better-sqlite3';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { STORE_FILENAME } from '../../src/config/defaults.js';
import { signedEnvelope } from '../helpers/envelope.js';
import { caught, testHubsClosedAfterEach } from '../helpers/hub.js';

const hubs = testHubsClosedAfterEach();

describe('events indexes', () => {
  it('indexes - no index on events is ordered by author for every post: a commit of many authors writes each index at its end', async () => {
    const t = await hubs.open();
    const alice = await t.hub.join({ handle: 'alice' });
    await alice.post({ thread: 'general', text: 'hello' });
    const db = new Database(path.join(t.home, STORE_FILENAME), { readonly: true });
    try {
      const indexes = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events' AND sql IS NOT NULL ORDER BY name").all();
      expect(indexes).toEqual([
        { name: 'events_by_envelope_sender', sql: 'CREATE INDEX events_by_envelope_sender ON events(from_id, thread_id, sender_epoch, sender_seq) WHERE sig IS NOT NULL' },
        { name: 'events_by_session', sql: 'CREATE INDEX events_by_session ON events(session_id, seq)' },
        { name: 'events_by_thread', sql: 'CREATE INDEX events_by_thread ON events(thread_id, seq)' },
      ]);
      // The sender's view of its deliveries reads the deliveries' index of their sender (test/hub/sent-deliveries.test.ts).
    } finally {
      db.close();
    }
  });

  it("indexes - an envelope under the epoch the hub signs its author's posts with is refused at a sender_seq the hub already gave", async () => {
    const t = await hubs.open();
    const alice = await t.hub.join({ handle: 'alice' });
    for (let i = 0; i < 3; i++) await alice.post({ thread: 'general', text: `post ${i}` });
    const { store } = t.hub.internals;
    const epoch = store.senders.epochOf(alice.participant.id)!;
    // The hub's own signatures are stored apart from the rows: the rows alone show no signed seq.
    const general = [...t.hub.internals.ctx.state.threads.values()].find((thread) => thread.name === 'general')!;
    expect(store.events.lastSenderSeq(alice.participant.id, general.id, epoch)).toBeUndefined();
    const given = store.senders.lastSeq(alice.participant.id, general.id);
    expect(given).toBeGreaterThanOrEqual(3);
    const replay = signedEnvelope(t, alice, { sender_seq: given - 1, sender_epoch: epoch });
    expect(await caught(() => alice.ingest(replay))).toMatchObject({ code: 'ENVELOPE_REJECTED', field: 'envelope.sender_seq' });
    // The next seq of that epoch is taken.
    await alice.ingest(signedEnvelope(t, alice, { sender_seq: given + 1, sender_epoch: epoch }));
  });
});
