import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { Actor } from '../../src/hub/actor.js';
import type { HubOptions } from '../../src/hub/hub.js';
import { caught, joinHumanAliceBob, testHubsClosedAfterEach, type HumanAliceBob, type TestHub } from '../helpers/hub.js';

/**
 * Retention: the hub prunes events past a thread's limits (hours or newest
 * messages, whichever keeps less), keeps what must stay, never holds up
 * posts, and the search index follows. The clock is the hub's `now`.
 */
const HOUR = 3_600_000;
const hubs = testHubsClosedAfterEach();

interface Setup extends HumanAliceBob {
  t: TestHub;
  clock: { now: number };
}

/** The per-participant write limit is off: these tests post in bulk. */
const UNLIMITED = { chat: { limits: { writesPerMinute: 0 } } };

/** A hub whose pruner never fires by itself (the tests call prune), on a clock the test moves. */
async function setup(retention: Record<string, number>, options: Partial<HubOptions> = {}): Promise<Setup> {
  const clock = { now: Date.parse('2026-11-24T08:00:00Z') };
  const t = await hubs.open({ config: { ...UNLIMITED, retention: { intervalMs: 86_400_000, ...retention } }, now: () => clock.now, ...options });
  return { t, ...(await joinHumanAliceBob(t.hub)), clock };
}

/** The hub of `t` closed and opened again on its home, as after a restart, on the same clock. */
const restart = (t: TestHub, clock: { now: number }): Promise<TestHub> => hubs.reopen(t, { config: { retention: { intervalMs: 86_400_000, hours: 1 } }, now: () => clock.now });

async function texts(actor: Actor, thread: string): Promise<string[]> {
  const { events } = await actor.history({ thread, limit: 500 });
  return events.filter((e) => e.type === 'message').map((e) => e.content as string);
}

async function kinds(actor: Actor, thread: string): Promise<string[]> {
  const { events } = await actor.history({ thread, limit: 500 });
  return events.map((e) => (e.type === 'system' ? `system:${(e.content as { action: string }).action}` : e.type));
}

async function postAll(actor: Actor, thread: string, lines: string[]): Promise<void> {
  for (const text of lines) await actor.post({ thread, text });
}

/** How many documents of search.db hold the word (read from the file, as anyone could). */
function indexed(home: string, word: string): number {
  const db = new Database(path.join(home, 'search.db'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM docs_fts WHERE docs_fts MATCH ?').get(`"${word}"`) as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('retention', () => {
  it('retention - the hours limit prunes events older than it and nothing newer', async () => {
    const { t, alice, clock } = await setup({ hours: 2 });
    await postAll(alice, 'general', ['old one', 'old two', 'old three']);
    clock.now += 3 * HOUR;
    await postAll(alice, 'general', ['new one', 'new two']);
    clock.now += HOUR; // the new ones are 1 h old: inside the limit.
    const report = await t.hub.prune();
    expect(await texts(alice, 'general')).toEqual(['new one', 'new two']);
    // The thread keeps its creation event; the old messages (and the old join notes) are gone.
    expect((await kinds(alice, 'general'))[0]).toBe('system:thread.created');
    expect(report.events).toBeGreaterThanOrEqual(3);
    // Nothing more to prune a second time, and looking costs no write.
    const writes = t.hub.stats().writes;
    expect((await t.hub.prune()).events).toBe(0);
    expect(t.hub.stats().writes).toBe(writes);
  });

  it('retention - the messages limit keeps the newest N events of each thread and nothing else', async () => {
    const { t, human, alice } = await setup({ messages: 3 });
    await human.createChannel({ name: 'design' });
    await postAll(alice, 'design', ['d1', 'd2']);
    await postAll(alice, 'general', ['m1', 'm2', 'm3', 'm4', 'm5', 'm6']);
    await t.hub.internals.ctx.sealer.settled();
    // A send recorded as expired (a DM its addressee's hub never got in time) goes with its event.
    const { store } = t.hub.internals;
    const [m1, m6] = (store.db.prepare("SELECT seq FROM events WHERE type = 'message' AND content IN ('m1', 'm6') ORDER BY seq").pluck().all() as number[]);
    await store.writes.write(() => [m1!, m6!].forEach((seq) => store.peerCursors.expired(seq, 1))).committed;
    await t.hub.prune();
    expect(await texts(alice, 'general')).toEqual(['m4', 'm5', 'm6']);
    expect(store.db.prepare('SELECT seq FROM expired_sends').pluck().all()).toEqual([m6]);
    // The signatures of pruned events go with them.
    const db = t.hub.internals.store.db;
    expect(db.prepare('SELECT COUNT(*) AS n FROM event_sigs WHERE seq NOT IN (SELECT seq FROM events)').get()).toEqual({ n: 0 });
    expect((db.prepare('SELECT COUNT(*) AS n FROM event_sigs').get() as { n: number }).n).toBeGreaterThan(0);
    expect(await kinds(alice, 'general')).toEqual(['system:thread.created', 'message', 'message', 'message']);
    // Another thread counts its own: its creation and two messages are within 3.
    expect(await texts(alice, 'design')).toEqual(['d1', 'd2']);
  });

  it('retention - a pinned thread keeps everything (its side channels too); unpinned, it is pruned', async () => {
    const { t, human, alice, clock } = await setup({ hours: 1 });
    await postAll(alice, 'general', ['keep me', 'and me']);
    const side = await human.openSide({ parent: 'general', title: 'aside' });
    await postAll(alice, side.id, ['side talk']);
    await human.pin('general');
    clock.now += 2 * HOUR;
    await human.post({ thread: 'general', text: 'newest' });
    expect((await t.hub.prune()).events).toBe(0);
    expect(await texts(alice, 'general')).toEqual(['keep me', 'and me', 'newest']);
    expect(await texts(alice, side.id)).toEqual(['side talk']);
    expect((await human.threadDetail('general')).controls).toMatchObject({ pinned: true, pinnedBy: 'human' });

    await human.pin('general', false);
    expect((await human.threadDetail('general')).controls.pinned).toBe(false);
    clock.now += 2 * HOUR;
    await t.hub.prune();
    expect(await texts(alice, 'general')).toEqual([]);
    expect(await texts(alice, side.id)).toEqual([]);
  });

  it('retention - open requests and their responses stay; a closed request goes with its index row', async () => {
    const { t, alice, bob, clock } = await setup({ hours: 1 });
    const open = await alice.request({ to: 'bob', intent: 'review', text: 'please review the cache', thread: 'general' });
    await bob.respond({ request_id: open.request_id, status: 'Accepted', text: 'on it' });
    const closed = await alice.request({ to: 'bob', intent: 'lint', thread: 'general' });
    await bob.respond({ request_id: closed.request_id, status: 'Completed' });
    await postAll(alice, 'general', ['chatter']);
    clock.now += 2 * HOUR;
    await alice.post({ thread: 'general', text: 'fresh' });
    await t.hub.prune();
    const { events } = await alice.history({ thread: 'general', limit: 100 });
    const kept = events.map((e) => [e.type, (e.content as { request_id?: string }).request_id ?? e.content]);
    expect(kept).toEqual([
      ['system', expect.objectContaining({ action: 'thread.created' })],
      ['request', open.request_id],
      ['response', open.request_id],
      ['message', 'fresh'],
    ]);
    // The open request still reads whole; the closed one is gone from the index too.
    expect((await bob.openRequests()).incoming).toEqual([expect.objectContaining({ request_id: open.request_id, text: 'please review the cache' })]);
    expect((await caught(() => alice.request({ to: 'bob', intent: 'again', reply_to: closed.request_id }))).code).toBe('NOT_FOUND');
    const row = t.hub.internals.store.db.prepare('SELECT COUNT(*) AS n FROM requests WHERE request_id = ?').get(closed.request_id) as { n: number };
    expect(row.n).toBe(0);
  });

  it('retention - the store’s newest event is never pruned, so no seq is ever handed out twice', async () => {
    const { t, alice, clock } = await setup({ hours: 1 });
    await postAll(alice, 'general', ['a', 'b', 'last']);
    const lastSeq = t.hub.stats().lastSeq;
    clock.now += 5 * HOUR;
    await t.hub.prune();
    expect(await texts(alice, 'general')).toEqual(['last']);
    await t.hub.close();
    const restarted = await restart(t, clock);
    const next = await restarted.hub.actor('alice', 's').post({ thread: 'general', text: 'after restart' });
    expect(next.seq).toBe(lastSeq + 1);
  });

  it('retention - search no longer finds pruned text, in the index file too, also after a restart', async () => {
    const { t, alice, clock } = await setup({ hours: 1 });
    const { home } = t;
    await postAll(alice, 'general', ['zebra crossing', 'zebra stripes']);
    expect((await alice.search({ query: 'zebra' })).events).toHaveLength(2);
    clock.now += 2 * HOUR;
    await alice.post({ thread: 'general', text: 'zebra today' });
    await t.hub.prune();
    expect((await alice.search({ query: 'zebra' })).events.map((e) => e.content)).toEqual(['zebra today']);
    expect(indexed(home, 'stripes')).toBe(0);
    await t.hub.close();
    const restarted = await restart(t, clock);
    expect((await restarted.hub.actor('alice', 's').search({ query: 'zebra' })).events.map((e) => e.content)).toEqual(['zebra today']);
    expect(indexed(home, 'crossing')).toBe(0);
  });

  it('retention - an index that missed a prune (a crash between the two deletes) heals when its indexer starts again', async () => {
    const { t, alice, clock } = await setup({ hours: 1 });
    const { home } = t;
    await postAll(alice, 'general', ['okapi one', 'okapi two']);
    await alice.search({ query: 'okapi' });
    clock.now += 2 * HOUR;
    await alice.post({ thread: 'general', text: 'fresh' });
    // The store's delete commits; the index's never happens, as if the hub died in between.
    const search = t.hub.internals.ctx.search;
    search.remove = () => undefined;
    expect((await t.hub.prune()).events).toBeGreaterThanOrEqual(2);
    await t.hub.close();
    expect(indexed(home, 'okapi')).toBe(2);
    const restarted = await restart(t, clock);
    await restarted.hub.internals.ctx.search.started();
    expect(indexed(home, 'okapi')).toBe(0);
    // Once applied, the records are dropped from the store at the next pass.
    await restarted.hub.prune();
    const left = restarted.hub.internals.store.db.prepare('SELECT COUNT(*) AS n FROM pruned').get() as { n: number };
    expect(left.n).toBe(0);
  });

  it('retention - an index older than the pruned records the store still has is rebuilt from the log', async () => {
    const { t, alice, clock } = await setup({ hours: 1 });
    const { home } = t;
    await postAll(alice, 'general', ['ibis one']);
    await alice.search({ query: 'ibis' });
    await t.hub.close();
    const stale = fs.readFileSync(path.join(home, 'search.db'));
    const restarted = await restart(t, clock);
    clock.now += 2 * HOUR;
    await restarted.hub.actor('alice', 's').post({ thread: 'general', text: 'fresh' });
    await restarted.hub.prune();
    // A search waits for the index to apply the prune; the next pass then drops the record from the store.
    await restarted.hub.actor('alice', 's').search({ query: 'ibis' });
    await restarted.hub.prune();
    expect((restarted.hub.internals.store.db.prepare('SELECT COUNT(*) AS n FROM pruned').get() as { n: number }).n).toBe(0);
    await restarted.hub.close();
    // A copy of the index from before the prune comes back (a restored backup): it cannot replay what the store dropped.
    fs.writeFileSync(path.join(home, 'search.db'), stale);
    expect(indexed(home, 'ibis')).toBe(1);
    const restartedAgain = await restart(restarted, clock);
    await restartedAgain.hub.internals.ctx.search.started();
    expect(indexed(home, 'ibis')).toBe(0);
    expect((await restartedAgain.hub.actor('alice', 's').search({ query: 'fresh' })).events).toHaveLength(1);
  });

  it('retention - posts made while a large prune runs all land, in order, none lost', async () => {
    const { t, human, alice, bob, clock } = await setup({ hours: 1, chunkBudgetMs: 0.5 });
    await human.createChannel({ name: 'busy' });
    const old = Array.from({ length: 3000 }, (_, i) => `old ${i}`);
    for (let i = 0; i < old.length; i += 100) await Promise.all(old.slice(i, i + 100).map((text) => alice.post({ thread: 'busy', text })));
    clock.now += 2 * HOUR;
    let pruning = true;
    const pass = t.hub.prune().finally(() => (pruning = false));
    // Turns of the event loop while the prune runs: it yields between chunks, so timers and I/O are served too.
    let turns = 0;
    const turn = (): void => {
      turns += 1;
      if (pruning) setImmediate(turn);
    };
    setImmediate(turn);
    const landed: Array<{ text: string; seq: number; duringPrune: boolean }> = [];
    for (let i = 0; i < 100; i += 1) {
      for (const [who, thread] of [[bob, 'busy'], [alice, 'general']] as const) {
        const text = `live ${thread} ${i}`;
        const { seq } = await who.post({ thread, text });
        landed.push({ text, seq, duringPrune: pruning });
      }
    }
    const report = await pass;
    expect(report.events).toBeGreaterThanOrEqual(3000);
    expect(report.chunks).toBeGreaterThan(1);
    expect(turns).toBeGreaterThanOrEqual(report.chunks);
    // Posts went in between chunks, not after the whole prune.
    expect(landed.filter((p) => p.duringPrune).length).toBeGreaterThan(0);
    expect(await texts(alice, 'busy')).toEqual(landed.filter((p) => p.text.includes('busy')).map((p) => p.text));
    expect(await texts(alice, 'general')).toEqual(landed.filter((p) => p.text.includes('general')).map((p) => p.text));
    const seqs = landed.map((p) => p.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  });

  it('retention - a new store gives pruned pages back to the file system (auto_vacuum=INCREMENTAL)', async () => {
    const { t, alice, clock } = await setup({ hours: 1 });
    const store = t.hub.internals.store;
    expect(store.retention.fileStats().autoVacuum).toBe('incremental');
    const big = 'x'.repeat(4000);
    for (let i = 0; i < 300; i += 1) await alice.post({ thread: 'general', text: `${big} ${i}` });
    const before = store.retention.fileStats().pages;
    clock.now += 2 * HOUR;
    await alice.post({ thread: 'general', text: 'fresh' });
    const report = await t.hub.prune();
    const after = store.retention.fileStats();
    expect(report.pagesFreed).toBeGreaterThan(200);
    expect(after.pages).toBeLessThan(before - 200);
    expect(after.freePages).toBe(0);
  });

  it('retention - pin takes a boolean, named in the error, and nothing is stored', async () => {
    const { t, human } = await setup({});
    const before = t.hub.stats().events;
    const error = await caught(() => human.control('general', { pin: { on: 'yes' } } as never));
    expect(error).toMatchObject({ code: 'INVALID_INPUT', field: 'control.pin.on' });
    expect((await caught(() => human.control('general', { pin: {} } as never))).field).toBe('control.pin.on');
    expect(t.hub.stats().events).toBe(before);
    expect((await human.threadDetail('general')).controls.pinned).toBe(false);
  });
});
