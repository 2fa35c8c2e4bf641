import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_FILENAME } from '../../src/config/defaults.js';
import { openHub, type Hub } from '../../src/hub/hub.js';
import { rawKeyOf } from '../../src/hub/participant-key.js';
import { SignaturePipeline } from '../../src/hub/signature-pipeline.js';
import type { EventRow } from '../../src/store/event-log.js';
import { signedFieldsOfRow } from '../../src/store/signed-fields.js';
import { eventSigningBytes, verifyEvent } from '../../src/trust/envelope.js';
import { createMemoryLogger, createSilentLogger } from '../../src/util/logger.js';
import { tempHome } from '../helpers/hub.js';

/**
 * Signatures are made on a worker thread and stored just after their events
 * (src/hub/signature-pipeline.ts). Whatever happens to the worker or the
 * process, every event the hub can sign ends up signed.
 */
const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const UNLIMITED = { chat: { limits: { writesPerMinute: 0 } } };

async function hubAt(home: string, options: { signEvents?: boolean; logger?: ReturnType<typeof createMemoryLogger> } = {}): Promise<Hub> {
  const hub = await openHub({ home, logger: options.logger ?? createSilentLogger(), config: UNLIMITED, signEvents: options.signEvents ?? true });
  cleanups.push(() => hub.close());
  return hub;
}

function freshHome(): string {
  const made = tempHome('parley-pipeline-');
  cleanups.push(made.cleanup);
  return made.home;
}

function allRows(hub: Hub): EventRow[] {
  return hub.internals.store.db.prepare('SELECT * FROM events ORDER BY seq').all() as EventRow[];
}

function rawKeyOfId(hub: Hub): (id: string) => Buffer {
  return (id) => rawKeyOf(hub.internals.ctx.state.participant(id));
}

/** Seqs of the events whose stored signature is missing or does not verify. */
function unverified(hub: Hub): number[] {
  const events = hub.internals.store.events;
  return allRows(hub)
    .filter((row) => {
      const sig = events.signatureOf(row);
      return sig === null || !verifyEvent(signedFieldsOfRow(row, rawKeyOfId(hub)), sig);
    })
    .map((row) => row.seq);
}

async function postMany(hub: Hub, authors: number, each: number): Promise<void> {
  const actors = await Promise.all(Array.from({ length: authors }, (_, i) => hub.join({ handle: `agent-${i}`, session: 'pipeline' })));
  await Promise.all(actors.map(async (actor, a) => {
    for (let i = 0; i < each; i++) await actor.post({ thread: 'general', text: `message ${i} from ${a}` });
  }));
}

describe('signature pipeline', () => {
  it('pipeline - a post returns before its signature is made; settled() waits for every signature, and each then verifies', async () => {
    const hub = await hubAt(freshHome());
    await postMany(hub, 10, 30);
    const db = hub.internals.store.db;
    const events = (db.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n;
    const signedNow = (db.prepare('SELECT COUNT(*) AS n FROM event_sigs').get() as { n: number }).n;
    // The last posts' signatures cannot be stored yet: their events were just committed.
    expect(signedNow).toBeLessThan(events);

    await hub.internals.ctx.sealer.settled();
    expect((db.prepare('SELECT COUNT(*) AS n FROM event_sigs').get() as { n: number }).n).toBe(events);
    expect(unverified(hub)).toEqual([]);
    expect(hub.internals.store.senders.signedThrough()).toBe(hub.stats().lastSeq);
  });

  it('pipeline - a hub that stopped before its signatures were stored signs them when it next starts, and says so', async () => {
    const home = freshHome();
    const first = await openHub({ home, logger: createSilentLogger(), config: UNLIMITED });
    await postMany(first, 3, 10);
    await first.close();
    // What a killed hub leaves: its events committed, the signatures of the last ones not, the mark behind them.
    const raw = new Database(path.join(home, STORE_FILENAME));
    const head = (raw.prepare('SELECT MAX(seq) AS seq FROM events').get() as { seq: number }).seq;
    const lost = raw.prepare('DELETE FROM event_sigs WHERE seq > ?').run(head - 12).changes;
    raw.prepare("UPDATE meta SET value = ? WHERE key = 'signed_through'").run(String(head - 12));
    raw.close();
    expect(lost).toBe(12);

    const logger = createMemoryLogger();
    const hub = await hubAt(home, { logger });
    expect(unverified(hub)).toEqual([]);
    expect(logger.records.find((e) => e.msg.startsWith('signed events the hub had stored without their signature'))).toMatchObject({ level: 'warn', events: 12 });
    expect(hub.internals.store.senders.signedThrough()).toBe(head);
  });

  it('pipeline - a signature for a seq now held by another event (its batch rolled back) is not stored', async () => {
    const hub = await hubAt(freshHome());
    await postMany(hub, 1, 1);
    await hub.internals.ctx.sealer.settled();
    const events = hub.internals.store.events;
    const row = allRows(hub).at(-1)!;
    const before = events.signatureOf(row);
    expect(before).not.toBeNull();
    const other = Buffer.alloc(64, 7);
    // Another id at the same seq: nothing stored; the same id, already signed: nothing overwritten.
    expect(events.setSig(row.seq, 'evt-of-a-rolled-back-batch', other)).toBe(false);
    expect(events.setSig(row.seq, row.id, other)).toBe(false);
    expect(events.signatureOf(row)).toEqual(before);
  });

  for (const [failure, script] of [
    ['dies before it answers', 'signing-worker-exits.mjs'],
    ['answers with an error', 'signing-worker-refuses.mjs'],
  ] as const) {
    it(`pipeline - a signing worker that ${failure}: the events are signed on the main thread and the operator is told`, async () => {
      const hub = await hubAt(freshHome(), { signEvents: false });
      await postMany(hub, 2, 5);
      const rows = allRows(hub);
      expect(rows.every((row) => hub.internals.store.events.signatureOf(row) === null)).toBe(true);

      const logger = createMemoryLogger();
      const { ctx, store } = hub.internals;
      const pipeline = new SignaturePipeline(
        { store, logger, headSeq: () => ctx.state.nextSeq - 1 },
        { workerUrl: new URL(`../fixtures/${script}`, import.meta.url) },
      );
      for (const row of rows) {
        const key = ctx.keys.participant(row.from_id).privateKey;
        expect(pipeline.submit({ seq: row.seq, eventId: row.id, author: row.from_id, key, bytes: eventSigningBytes(signedFieldsOfRow(row, rawKeyOfId(hub))) })).toBeNull();
      }
      await pipeline.settled();
      await pipeline.close();
      expect(unverified(hub)).toEqual([]);
      expect(logger.records.some((e) => e.level === 'error' && /signing worker/.test(e.msg))).toBe(true);
    });
  }

  it('pipeline - past its limit of waiting events, an event is signed as it is appended', async () => {
    const hub = await hubAt(freshHome(), { signEvents: false });
    await postMany(hub, 1, 3);
    const { ctx, store } = hub.internals;
    const pipeline = new SignaturePipeline({ store, logger: createSilentLogger(), headSeq: () => ctx.state.nextSeq - 1 }, { maxInFlight: 2 });
    cleanups.push(() => pipeline.close());
    const given = allRows(hub)
      .filter((row) => row.type === 'message')
      .map((row) => {
        const bytes = eventSigningBytes(signedFieldsOfRow(row, rawKeyOfId(hub)));
        const sig = pipeline.submit({ seq: row.seq, eventId: row.id, author: row.from_id, key: ctx.keys.participant(row.from_id).privateKey, bytes });
        return { row, sig };
      });
    expect(given.map((g) => g.sig === null)).toEqual([true, true, false]);
    const third = given[2]!;
    expect(verifyEvent(signedFieldsOfRow(third.row, rawKeyOfId(hub)), third.sig!)).toBe(true);
  });
});
