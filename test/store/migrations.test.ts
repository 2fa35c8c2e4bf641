import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_FILENAME } from '../../src/config/defaults.js';
import { ParleyError } from '../../src/errors/parley-error.js';
import { openHub } from '../../src/hub/hub.js';
import { LATEST_STORE_VERSION, MIGRATIONS, currentVersion, migrate, type Migration } from '../../src/store/migrations.js';
import { openStore } from '../../src/store/store.js';
import { createSilentLogger } from '../../src/util/logger.js';
import { signedEnvelope, verifiedExport } from '../helpers/envelope.js';
import { caught, openTestHub, tempHome } from '../helpers/hub.js';
import { refusal } from '../helpers/refusal.js';

const cleanups: Array<() => void | Promise<unknown>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function storeFile(): string {
  const made = tempHome('parley-migrate-');
  cleanups.push(made.cleanup);
  return path.join(made.home, STORE_FILENAME);
}

function scratch(file: string): Database.Database {
  const db = new Database(file);
  cleanups.push(() => {
    if (db.open) db.close();
  });
  return db;
}

function schemaOf(db: Database.Database): Array<{ type: string; name: string; sql: string | null }> {
  return db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY type, name').all() as Array<{
    type: string;
    name: string;
    sql: string | null;
  }>;
}

function tableNames(db: Database.Database): string[] {
  return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>).map(
    (row) => row.name,
  );
}

describe('store migrations', () => {
  it('migrations - a fresh store is migrated to the latest version, in WAL mode, with every table', () => {
    expect(LATEST_STORE_VERSION).toBe(MIGRATIONS[MIGRATIONS.length - 1]?.version);
    expect(LATEST_STORE_VERSION).toBeGreaterThanOrEqual(1);
    const file = storeFile();
    const store = openStore({ file });
    cleanups.push(() => store.close());

    expect(store.db.pragma('user_version', { simple: true })).toBe(LATEST_STORE_VERSION);
    expect(currentVersion(store.db)).toBe(LATEST_STORE_VERSION);
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    const tables = tableNames(store.db);
    for (const table of ['events', 'cursors', 'deliveries', 'requests', 'sessions', 'participants', 'threads', 'memberships']) {
      expect(tables).toContain(table);
    }
    expect(store.integrityCheck()).toBe('ok');
    // Another connection sees the same committed schema.
    const other = scratch(file);
    expect(other.pragma('user_version', { simple: true })).toBe(LATEST_STORE_VERSION);
    expect(tableNames(other)).toEqual(tables);
  });

  it('migrations - migrating an up-to-date store runs nothing (from === to) and leaves the schema alone', () => {
    const file = storeFile();
    openStore({ file }).close();

    const db = scratch(file);
    const before = schemaOf(db);
    expect(migrate(db)).toEqual({ from: LATEST_STORE_VERSION, to: LATEST_STORE_VERSION });
    expect(schemaOf(db)).toEqual(before);
    expect(migrate(db)).toEqual({ from: LATEST_STORE_VERSION, to: LATEST_STORE_VERSION });
    db.close();

    // Opening it again through openStore works and keeps the version.
    const store = openStore({ file });
    cleanups.push(() => store.close());
    expect(currentVersion(store.db)).toBe(LATEST_STORE_VERSION);
    expect(schemaOf(store.db)).toEqual(before);
  });

  it('migrations - a fresh database reports the whole range it migrated', () => {
    const db = scratch(':memory:');
    expect(migrate(db)).toEqual({ from: 0, to: LATEST_STORE_VERSION });
    expect(currentVersion(db)).toBe(LATEST_STORE_VERSION);
  });

  it('migrations - a store newer than this Parley fails with STORE_VERSION and says what to do', async () => {
    const file = storeFile();
    const newer = LATEST_STORE_VERSION + 1;
    const raw = scratch(file);
    raw.pragma(`user_version = ${newer}`);
    raw.close();

    const error = refusal(() => openStore({ file }), 'STORE_VERSION');
    expect(error.message).toContain(`version ${newer}`);
    expect(error.message).toContain(`(${LATEST_STORE_VERSION})`);
    expect(error.message).toMatch(/Upgrade Parley/);
    expect(error.message).toMatch(/another home/);

    // Nothing was changed: the version is still the newer one and no table was created.
    const check = scratch(file);
    expect(currentVersion(check)).toBe(newer);
    expect(tableNames(check)).toEqual([]);
    check.close();

    // Through openHub the same error surfaces, and the home lock is released again.
    const home = path.dirname(file);
    const viaHub = await caught(() => openHub({ home, logger: createSilentLogger() }));
    expect(viaHub).toBeInstanceOf(ParleyError);
    expect(viaHub.code).toBe('STORE_VERSION');
    const again = await caught(() => openHub({ home, logger: createSilentLogger() }));
    expect(again.code).toBe('STORE_VERSION');
  });

  it('migrations - a home from before the injected state opens, and keeps its deliveries with their states and times', async () => {
    const file = storeFile();
    const old = scratch(file);
    expect(migrate(old, MIGRATIONS.filter((m) => m.version <= 2))).toEqual({ from: 0, to: 2 });
    const insert = old.prepare(
      `INSERT INTO deliveries (recipient_id, seq, session_id, thread_id, reason, state, delivered_at, acknowledged_at) VALUES (?, ?, 'S', 'T', 'dm', ?, ?, ?)`,
    );
    insert.run('P', 1, 'pending', null, null);
    insert.run('P', 2, 'delivered', 1_000, null);
    insert.run('P', 3, 'acknowledged', 1_000, 2_000);
    old.close();

    // The hub opens the old home (migrating it) and closes it again.
    const home = path.dirname(file);
    const hub = await openHub({ home, logger: createSilentLogger() });
    await hub.close();

    const store = openStore({ file });
    cleanups.push(() => store.close());
    expect(currentVersion(store.db)).toBe(LATEST_STORE_VERSION);
    expect([1, 2, 3].map((seq) => store.deliveries.get('P', seq))).toEqual([
      { recipient_id: 'P', seq: 1, session_id: 'S', thread_id: 'T', reason: 'dm', sender_id: null, state: 'pending', delivered_at: null, injected_at: null, acknowledged_at: null },
      { recipient_id: 'P', seq: 2, session_id: 'S', thread_id: 'T', reason: 'dm', sender_id: null, state: 'delivered', delivered_at: 1_000, injected_at: null, acknowledged_at: null },
      { recipient_id: 'P', seq: 3, session_id: 'S', thread_id: 'T', reason: 'dm', sender_id: null, state: 'acknowledged', delivered_at: 1_000, injected_at: null, acknowledged_at: 2_000 },
    ]);
    // The new state is accepted by the rebuilt table; an acknowledged item is not taken back.
    expect(store.deliveries.markInjected('P', 1, 3_000)).toBe(true);
    expect(store.deliveries.markInjected('P', 3, 3_000)).toBe(false);
    expect(store.deliveries.get('P', 1)).toMatchObject({ state: 'injected', delivered_at: 3_000, injected_at: 3_000 });
    expect(store.integrityCheck()).toBe('ok');
  });

  it('migrations - a new store is made in one transaction: a step that throws leaves it empty at version 0', () => {
    const db = scratch(path.join(path.dirname(storeFile()), 'fresh.db'));
    const first: Migration = { version: 1, name: 'first', up: 'CREATE TABLE a (x INTEGER);' };
    const broken: Migration = { version: 2, name: 'broken', up: 'INSERT INTO no_such_table VALUES (1);' };
    expect(() => migrate(db, [first, broken])).toThrow(/no such table: no_such_table/);
    expect(currentVersion(db)).toBe(0);
    expect(tableNames(db)).toEqual([]);
    expect(db.inTransaction).toBe(false);
  });

  it('migrations - a new store made at once has the same schema as one migrated step by step', () => {
    const atOnce = scratch(path.join(path.dirname(storeFile()), 'at-once.db'));
    expect(migrate(atOnce)).toEqual({ from: 0, to: LATEST_STORE_VERSION });
    const stepwise = scratch(path.join(path.dirname(storeFile()), 'stepwise.db'));
    expect(migrate(stepwise, MIGRATIONS.slice(0, 1))).toEqual({ from: 0, to: 1 });
    expect(migrate(stepwise)).toEqual({ from: 1, to: LATEST_STORE_VERSION });
    expect(schemaOf(atOnce)).toEqual(schemaOf(stepwise));
    expect(schemaOf(atOnce).length).toBeGreaterThan(10);
  });

  it('migrations - a migration that throws is rolled back whole and leaves the version unchanged', () => {
    const db = scratch(path.join(path.dirname(storeFile()), 'scratch.db'));
    const first: Migration = { version: 1, name: 'first', up: 'CREATE TABLE a (x INTEGER);' };
    const broken: Migration = {
      version: 2,
      name: 'broken',
      up: 'CREATE TABLE b (y INTEGER); INSERT INTO a (x) VALUES (1); INSERT INTO no_such_table VALUES (1);',
    };
    const third: Migration = { version: 3, name: 'third', up: 'CREATE TABLE c (z INTEGER);' };

    expect(migrate(db, [first])).toEqual({ from: 0, to: 1 });
    expect(() => migrate(db, [first, broken, third])).toThrow(/no such table: no_such_table/);
    expect(currentVersion(db)).toBe(1);
    // The half-run migration left nothing behind, and the later one did not run.
    expect(tableNames(db)).toEqual(['a']);
    expect(db.prepare('SELECT COUNT(*) AS n FROM a').get()).toEqual({ n: 0 });
    expect(db.inTransaction).toBe(false);

    // Once fixed, the migrations run from where the store stands.
    const fixed: Migration = { ...broken, up: 'CREATE TABLE b (y INTEGER); INSERT INTO a (x) VALUES (1);' };
    expect(migrate(db, [first, fixed, third])).toEqual({ from: 1, to: 3 });
    expect(tableNames(db)).toEqual(['a', 'b', 'c']);
    expect(db.prepare('SELECT COUNT(*) AS n FROM a').get()).toEqual({ n: 1 });
    expect(migrate(db, [first, fixed, third])).toEqual({ from: 3, to: 3 });
  });

  it('migrations - a home from before envelopes kept their signed ts and meta apart opens, and an envelope it took in still verifies', async () => {
    const file = storeFile();
    const home = path.dirname(file);
    const first = await openTestHub({ home });
    const alice = await first.hub.join({ handle: 'alice' });
    const signedAt = Date.now() - 60_000;
    const taken = await alice.ingest(signedEnvelope(first, alice, { ts: signedAt, meta: { tags: ['old'] } }));
    await first.close();
    // As a version 9 store held it: the envelope's signed ts and meta in the row's own columns.
    const old = scratch(file);
    old.exec('UPDATE events SET ts = signed_ts, meta = signed_meta WHERE signed_ts IS NOT NULL; ALTER TABLE events DROP COLUMN signed_ts; ALTER TABLE events DROP COLUMN signed_meta; ALTER TABLE tokens DROP COLUMN kind; DROP INDEX deliveries_by_sender; ALTER TABLE deliveries DROP COLUMN sender_id; ALTER TABLE participants DROP COLUMN hub_key; ALTER TABLE participants DROP COLUMN hub_name; ALTER TABLE events DROP COLUMN signed_thread; DROP TABLE peer_cursors; ALTER TABLE events DROP COLUMN prev_seq; ALTER TABLE sender_seqs DROP COLUMN crossing_seq; DROP TABLE expired_sends;');
    old.pragma('user_version = 9');
    old.close();

    const again = await openTestHub({ home });
    cleanups.push(() => again.close());
    expect(currentVersion(again.hub.internals.store.db)).toBe(LATEST_STORE_VERSION);
    const reader = await again.hub.join({ handle: 'alice' });
    const { report } = await verifiedExport(reader, 'general');
    expect(report.events).toBeGreaterThanOrEqual(2);
    expect((await reader.history({ thread: 'general' })).events.find((e) => e.id === taken.id)?.ts).toBe(new Date(signedAt).toISOString());
  });
});
