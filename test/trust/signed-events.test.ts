import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openHub } from '../../src/hub/hub.js';
import type { EventRow } from '../../src/store/event-log.js';
import { MIGRATIONS, migrate } from '../../src/store/migrations.js';
import { signedFieldsOfRow } from '../../src/store/signed-fields.js';
import { openStore } from '../../src/store/store.js';
import { ProfileSchema } from '../../src/schema/participant.js';
import { verifyEvent } from '../../src/trust/envelope.js';
import { participantIdOf, rawPublicKeyOf } from '../../src/trust/node-id.js';
import { createMemoryLogger, createSilentLogger } from '../../src/util/logger.js';
import { tempHomesRemovedAfterEach } from '../helpers/hub.js';

const home = tempHomesRemovedAfterEach('parley-signed-');

/** Every stored event of the home's store, read straight from the file, with its signature wherever it is kept. */
function storedRows(dir: string): { rows: EventRow[]; rawKeyOf: (id: string) => Buffer } {
  const db = new Database(path.join(dir, 'parley.db'), { readonly: true });
  try {
    const keys = new Map((db.prepare('SELECT id, public_key FROM participants').all() as Array<{ id: string; public_key: Buffer }>).map((p) => [p.id, p.public_key]));
    const lateSigs = new Map((db.prepare('SELECT seq, sig FROM event_sigs').all() as Array<{ seq: number; sig: Buffer }>).map((s) => [s.seq, s.sig]));
    const rows = (db.prepare('SELECT * FROM events ORDER BY seq').all() as EventRow[]).map((row) => ({ ...row, sig: row.sig ?? lateSigs.get(row.seq) ?? null }));
    return { rows, rawKeyOf: (id) => keys.get(id)! };
  } finally {
    db.close();
  }
}

function expectAllVerify(dir: string): EventRow[] {
  const { rows, rawKeyOf } = storedRows(dir);
  for (const row of rows) {
    expect(row.sig, `event ${row.seq} (${row.type}) is signed`).not.toBeNull();
    expect(verifyEvent(signedFieldsOfRow(row, rawKeyOf), row.sig!), `event ${row.seq} (${row.type}) verifies against its author's key`).toBe(true);
  }
  return rows;
}

/** (author, thread) → the sender_seqs in seq order. */
function senderSeqs(rows: EventRow[]): Map<string, number[]> {
  const byCounter = new Map<string, number[]>();
  for (const row of rows) {
    const key = `${row.from_id} ${row.thread_id}`;
    byCounter.set(key, [...(byCounter.get(key) ?? []), row.sender_seq!]);
  }
  return byCounter;
}

describe('signed events', () => {
  it('signing - every event the hub writes, of every kind, carries its author\'s signature that verifies over the stored fields', async () => {
    const dir = home();
    const hub = await openHub({ home: dir, logger: createSilentLogger() });
    const human = await hub.join({ handle: 'human', profile: { kind: 'human' } });
    const coder = await hub.join({ handle: 'coder-1' });
    await human.post({ thread: 'general', text: 'plan the cache, @coder-1', tags: ['plan'] });
    const dm = await coder.dm({ to: 'human', text: 'on it' });
    await human.post({ thread: dm.thread, text: 'thanks', reply_to: dm.id });
    const asked = await coder.request({ to: 'human', intent: 'review', params: { file: 'cache.ts', lines: [1, 2.5] } });
    await human.respond({ request_id: asked.request_id, status: 'Completed', result: { ok: true } });
    await human.control('general', { pause: { on: true } });
    await human.control('general', { pause: { on: false } });
    const side = await human.openSide({ parent: 'general', title: 'cache details', members: ['coder-1'] });
    await coder.post({ thread: side.id, text: 'detail' });
    await human.closeSide({ thread: side.id, summary: 'done' });
    await human.createChannel({ name: 'ops' });
    await hub.close();

    const rows = expectAllVerify(dir);
    expect(new Set(rows.map((r) => r.type))).toEqual(new Set(['system', 'message', 'request', 'response', 'control']));
    const { rawKeyOf } = storedRows(dir);
    for (const row of rows) {
      // The id is the hash of the key that signed: the signature names its author.
      expect(participantIdOf(rawKeyOf(row.from_id))).toBe(row.from_id);
      expect(row.ttl_secs).toBe(300);
      expect(row.sender_epoch?.length).toBe(16);
    }
    // One epoch per author.
    const epochs = new Map<string, string>();
    for (const row of rows) {
      const hex = row.sender_epoch!.toString('hex');
      expect(epochs.get(row.from_id) ?? hex).toBe(hex);
      epochs.set(row.from_id, hex);
    }
    expect(epochs.size).toBe(2);
    // sender_seq counts 1, 2, 3… per (author, thread).
    for (const [counter, seqs] of senderSeqs(rows)) expect(seqs, counter).toEqual(seqs.map((_, i) => i + 1));
  });

  it('signing - sender_seq keeps counting across a restart and never reuses a number given in a rolled-back batch', async () => {
    const dir = home();
    const first = await openHub({ home: dir, logger: createSilentLogger() });
    const alice = await first.join({ handle: 'alice' });
    await alice.post({ thread: 'general', text: 'one' });
    await alice.post({ thread: 'general', text: 'two' });
    await first.close();

    const second = await openHub({ home: dir, logger: createSilentLogger() });
    const again = await second.join({ handle: 'alice' });
    await again.post({ thread: 'general', text: 'three' });
    // A batch that takes a sender_seq and then fails: the number is spent, not given again.
    const { ctx, store } = second.internals;
    const last = storedRows(dir).rows.at(-1)!;
    expect(() =>
      store.writes.write(() => {
        ctx.sealer.seal({ ...last, seq: last.seq + 1, id: 'rolled-back' });
        throw new Error('this batch fails');
      }),
    ).toThrow('this batch fails');
    await again.post({ thread: 'general', text: 'four' });
    await second.close();

    const rows = expectAllVerify(dir);
    const aliceId = rows.find((r) => r.content === 'one')!.from_id;
    const mine = rows.filter((r) => r.from_id === aliceId && r.type === 'message');
    expect(mine.map((r) => [r.content, r.sender_seq])).toEqual([
      ['one', mine[0]!.sender_seq],
      ['two', mine[0]!.sender_seq! + 1],
      ['three', mine[0]!.sender_seq! + 2],
      ['four', mine[0]!.sender_seq! + 4],
    ]);
    // The epoch stayed: nothing was lost.
    expect(new Set(mine.map((r) => r.sender_epoch!.toString('hex'))).size).toBe(1);
  });

  it('signing - a store restored from a backup (fewer events than at the last close) gives every author a new sender epoch, so no (epoch, seq) is reused', async () => {
    const dir = home();
    const first = await openHub({ home: dir, logger: createSilentLogger() });
    await (await first.join({ handle: 'alice' })).post({ thread: 'general', text: 'before the backup' });
    await first.close();
    const backup = fs.readFileSync(path.join(dir, 'parley.db'));
    const second = await openHub({ home: dir, logger: createSilentLogger() });
    await (await second.join({ handle: 'alice' })).post({ thread: 'general', text: 'lost with the restore' });
    await second.close();
    const lost = storedRows(dir).rows.find((r) => r.content === 'lost with the restore')!;
    // The backup is put back.
    for (const name of ['parley.db-wal', 'parley.db-shm']) fs.rmSync(path.join(dir, name), { force: true });
    fs.writeFileSync(path.join(dir, 'parley.db'), backup);
    const logger = createMemoryLogger();
    const restored = await openHub({ home: dir, logger });
    await (await restored.join({ handle: 'alice' })).post({ thread: 'general', text: 'after the restore' });
    await restored.close();
    expect(logger.records.some((r) => r.level === 'warn' && r.msg.includes('new sender epoch'))).toBe(true);
    const rows = expectAllVerify(dir);
    const before = rows.find((r) => r.content === 'before the backup')!;
    const after = rows.find((r) => r.content === 'after the restore')!;
    // The restored counter gives the lost event's seq again, but under a new epoch.
    expect(after.sender_seq).toBe(lost.sender_seq);
    expect(after.sender_epoch!.equals(lost.sender_epoch!)).toBe(false);
    expect(after.sender_epoch!.equals(before.sender_epoch!)).toBe(false);
    // A clean restart with nothing lost keeps the epoch.
    const again = await openHub({ home: dir, logger: createSilentLogger() });
    await (await again.join({ handle: 'alice' })).post({ thread: 'general', text: 'same epoch' });
    await again.close();
    expect(storedRows(dir).rows.find((r) => r.content === 'same epoch')!.sender_epoch!.equals(after.sender_epoch!)).toBe(true);
  });

  it('signing - a store from before signing has its events signed by their authors when it is opened', () => {
    const dir = home();
    const file = path.join(dir, 'parley.db');
    const old = new Database(file);
    migrate(old, MIGRATIONS.filter((m) => m.version <= 3));
    const keys = [0, 1].map(() => crypto.generateKeyPairSync('ed25519').privateKey);
    const ids = keys.map((key) => participantIdOf(rawPublicKeyOf(key)));
    const addParticipant = old.prepare('INSERT INTO participants (id, handle, kind, profile, public_key, secret_key, created_at) VALUES (?, ?, ?, ?, ?, ?, 1)');
    keys.forEach((key, i) => addParticipant.run(ids[i], `p${i}`, 'agent', JSON.stringify(ProfileSchema.parse({ kind: 'agent' })), rawPublicKeyOf(key), key.export({ type: 'pkcs8', format: 'der' })));
    const addEvent = old.prepare(
      "INSERT INTO events (seq, id, session_id, thread_id, ts, type, from_id, author, to_id, content, meta) VALUES (?, ?, 'S', ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    addEvent.run(1, '01KAPM5S0000000000000000A1', 'T1', 1000, 'message', ids[0], 'p0', 'all', 'hello', null);
    addEvent.run(2, '01KAPM5S0000000000000000A2', 'T1', 2000, 'message', ids[1], 'p1', ids[0], 'hi', '{"reply_to":"01KAPM5S0000000000000000A1"}');
    addEvent.run(3, '01KAPM5S0000000000000000A3', 'T1', 3000, 'control', ids[0], 'p0', 'all', '{"pause":{"on":true}}', null);
    addEvent.run(4, '01KAPM5S0000000000000000A4', 'T2', 4000, 'message', ids[0], 'p0', 'all', 'elsewhere', null);
    old.close();

    openStore({ file }).close();
    const rows = expectAllVerify(dir);
    expect(rows.map((r) => [r.from_id === ids[0] ? 'p0' : 'p1', r.thread_id, r.sender_seq])).toEqual([
      ['p0', 'T1', 1],
      ['p1', 'T1', 1],
      ['p0', 'T1', 2],
      ['p0', 'T2', 1],
    ]);
    // The counters go on from there.
    const db = new Database(file, { readonly: true });
    const counters = db.prepare('SELECT participant_id, thread_id, seq FROM sender_seqs').all() as Array<{ participant_id: string; thread_id: string; seq: number }>;
    expect(new Set(counters.map((c) => `${c.participant_id === ids[0] ? 'p0' : 'p1'} ${c.thread_id} ${c.seq}`))).toEqual(new Set(['p0 T1 2', 'p0 T2 1', 'p1 T1 1']));
    db.close();
  });

  it('signing - an author whose key file is gone gets its events stored unsigned and the operator is told, while others keep signing', async () => {
    const dir = home();
    const hub = await openHub({ home: dir, logger: createSilentLogger() });
    const lost = await hub.join({ handle: 'lost' });
    const kept = await hub.join({ handle: 'kept' });
    const lostId = (await lost.whoami()).participant.id;
    await kept.post({ thread: 'general', text: 'before' });
    await hub.close();
    fs.rmSync(path.join(dir, 'keys', 'participants', `${lostId}.key`));
    const logger = createMemoryLogger();
    const reopened = await openHub({ home: dir, logger });
    await (await reopened.join({ handle: 'lost' })).post({ thread: 'general', text: 'mine is not signed' });
    await (await reopened.join({ handle: 'lost' })).post({ thread: 'general', text: 'nor mine' });
    await (await reopened.join({ handle: 'kept' })).post({ thread: 'general', text: 'mine is' });
    await reopened.close();
    // Said once, naming the author.
    const said = logger.records.filter((r) => r.msg.includes("cannot read this author's key"));
    expect(said.map((r) => r.participant)).toEqual([lostId]);
    const { rows } = storedRows(dir);
    expect(rows.find((r) => r.content === 'mine is not signed')?.sig).toBeNull();
    expect(rows.find((r) => r.content === 'nor mine')?.sig).toBeNull();
    expect(rows.find((r) => r.content === 'mine is')?.sig?.length).toBe(64);
  });
});
