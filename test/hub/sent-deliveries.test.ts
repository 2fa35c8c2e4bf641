import Database from 'better-sqlite3';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { STORE_FILENAME } from '../../src/config/defaults.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { joinHumanAliceBob, testHubsClosedAfterEach } from '../helpers/hub.js';

const hubs = testHubsClosedAfterEach();
const BY_SENDER = MIGRATIONS.find((m) => m.name === 'deliveries by sender');

describe('sent deliveries', () => {
  it('sent deliveries - read from the sender\'s own deliveries, not by walking every event it posted', async () => {
    const t = await hubs.open();
    const { alice } = await joinHumanAliceBob(t.hub);
    for (let i = 0; i < 25; i++) await alice.post({ thread: 'general', text: `note ${i}` });
    const dm = await alice.dm({ to: 'bob', text: 'review my branch?' });
    for (let i = 0; i < 25; i++) await alice.post({ thread: 'general', text: `more ${i}` });
    expect((await alice.sentDeliveries({ limit: 5 })).map((d) => [d.id, d.to, d.state])).toEqual([[dm.id, 'bob', 'pending']]);

    // The shipped statement, as SQLite plans it: through the sender index, with no scan of events.
    const statement = (t.hub.internals.store.deliveries as unknown as { sentStmt: Database.Statement }).sentStmt;
    const plan = (t.hub.internals.store.db.prepare(`EXPLAIN QUERY PLAN ${statement.source}`).all({ me: 'x', session: 'y', state: 'all', upTo: 1, since: null, limit: 5 }) as Array<{ detail: string }>).map((row) => row.detail);
    expect(plan.some((detail) => detail.includes('deliveries_by_sender'))).toBe(true);
    expect(plan.filter((detail) => /^SCAN /.test(detail))).toEqual([]);
  });

  it('sent deliveries - a store from before the sender index keeps showing each sender what it sent, once migrated', async () => {
    const t = await hubs.open();
    const { alice, bob } = await joinHumanAliceBob(t.hub);
    const toBob = await alice.dm({ to: 'bob', text: 'first' });
    const toAlice = await bob.dm({ to: 'alice', text: 'second' });
    await t.hub.close();

    // Back to the store as it was before: no sender column, no index (nor what later versions added), the version before it.
    const db = new Database(path.join(t.home, STORE_FILENAME));
    db.exec('DROP INDEX deliveries_by_sender; ALTER TABLE deliveries DROP COLUMN sender_id; ALTER TABLE participants DROP COLUMN hub_key; ALTER TABLE participants DROP COLUMN hub_name; ALTER TABLE events DROP COLUMN signed_thread; DROP TABLE peer_cursors; ALTER TABLE events DROP COLUMN prev_seq; ALTER TABLE sender_seqs DROP COLUMN crossing_seq; DROP TABLE expired_sends;');
    db.pragma(`user_version = ${BY_SENDER!.version - 1}`);
    db.close();

    const again = await hubs.open({ home: t.home });
    const [alice2, bob2] = [await again.hub.join({ handle: 'alice', session: 's' }), await again.hub.join({ handle: 'bob', session: 's' })];
    expect((await alice2.sentDeliveries()).map((d) => [d.id, d.to])).toEqual([[toBob.id, 'bob']]);
    expect((await bob2.sentDeliveries()).map((d) => [d.id, d.to])).toEqual([[toAlice.id, 'alice']]);
  });
});
