import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openHub, type Hub } from '../../src/hub/hub.js';
import { readInbox } from '../../src/hub/inbox.js';
import { readNew } from '../../src/hub/reading.js';
import { createSilentLogger } from '../../src/util/logger.js';
import { caught, tempHome, testHubsClosedAfterEach } from '../helpers/hub.js';

const hubs = testHubsClosedAfterEach();

async function four(config = {}) {
  const t = await hubs.open({ config });
  const human = await t.hub.join({ handle: 'human', session: 's', profile: { kind: 'human' } });
  const alice = await t.hub.join({ handle: 'alice', session: 's' });
  const bob = await t.hub.join({ handle: 'bob', session: 's' });
  const carol = await t.hub.join({ handle: 'carol', session: 's' });
  for (const a of [human, alice, bob, carol]) await a.inbox({ limit: 500 });
  return { human, alice, bob, carol, hub: t.hub };
}

/** Yields microtasks (never a macrotask) until `done()` holds, so a pending group commit cannot run. */
async function microtasksUntil(done: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !done(); i++) await Promise.resolve();
  expect(done()).toBe(true);
}

describe('DM privacy', () => {
  it('dm - an @mention of an outsider in a DM reaches nobody outside it', async () => {
    const { alice, carol } = await four();
    await alice.dm({ to: 'bob', text: 'the plan, @carol should not see this' });
    expect((await carol.peek()).items).toEqual([]);
    expect(await carol.deliveries('pending')).toEqual([]);
  });

  it('dm - to, requests and prods aimed at an outsider inside a DM are refused', async () => {
    // alice prods: an admin's control.
    const { alice, bob } = await four({ trust: { access: { alice: 'admin' } } });
    const dm = await alice.dm({ to: 'bob', text: 'hi' });
    expect(await caught(() => alice.post({ thread: dm.thread, text: 'x', to: 'carol' }))).toMatchObject({ code: 'INVALID_INPUT', field: 'to' });
    expect(await caught(() => alice.request({ to: 'carol', intent: 'x', thread: dm.thread }))).toMatchObject({ code: 'INVALID_INPUT', field: 'to' });
    expect(await caught(() => alice.prod(dm.thread, ['carol']))).toMatchObject({ code: 'INVALID_INPUT' });
    expect((await bob.peek()).items.map((i) => i.event.content)).toEqual(['hi']);
  });

  it('dm - a follow-up to a request inside others’ DM is refused as not found', async () => {
    const { alice, carol } = await four();
    const r = await alice.request({ to: 'bob', intent: 'secret-work' });
    expect(await caught(() => carol.request({ to: 'alice', intent: 'x', reply_to: r.request_id }))).toMatchObject({
      code: 'NOT_FOUND',
      field: 'reply_to',
    });
  });
});

describe('steering cannot be bypassed', () => {
  it('steering - an invite never changes an existing participant’s profile', async () => {
    // alice invites: an admin's control.
    const { alice, hub } = await four({ trust: { access: { alice: 'admin' } } });
    await alice.createChannel({ name: 'work' });
    await alice.invite('work', 'alice', { kind: 'human' });
    await alice.invite('work', 'human', { kind: 'agent' });
    const kinds = Object.fromEntries(hub.participants().map((p) => [p.handle, p.profile.kind]));
    expect(kinds).toMatchObject({ alice: 'agent', human: 'human' });
  });

  it('steering - a muted or paused agent cannot respond, rename or close a side channel, nor steer (an admin\'s, FORBIDDEN_ROLE)', async () => {
    const { human, alice, bob } = await four();
    const r = await human.request({ to: 'alice', intent: 'x', thread: 'general' });
    const side = await alice.openSide({ parent: 'general', title: 'detail', members: ['bob'] });
    await human.pause('general');
    expect((await caught(() => alice.respond({ request_id: r.request_id, status: 'Completed' }))).code).toBe('THREAD_PAUSED');
    expect((await caught(() => alice.resume('general'))).code).toBe('FORBIDDEN_ROLE');
    expect((await caught(() => alice.renameThread({ thread: 'general', name: 'mine' }))).code).toBe('THREAD_PAUSED');
    expect((await caught(() => alice.closeSide({ thread: side.id, summary: 'done' }))).code).toBe('THREAD_PAUSED');
    await human.resume('general');
    await human.hardMute(side.id, ['alice']);
    expect((await caught(() => alice.closeSide({ thread: side.id, summary: 'done' }))).code).toBe('PARTICIPANT_MUTED');
    expect((await caught(() => alice.unmute(side.id, ['bob']))).code).toBe('FORBIDDEN_ROLE');
    expect((await caught(() => alice.prod(side.id, ['bob']))).code).toBe('FORBIDDEN_ROLE');
    await expect(bob.closeSide({ thread: side.id, summary: 'bob closes it' })).resolves.toMatchObject({ thread: side.id });
  });

  it('steering - the side channel summary message obeys maxMessageChars as a whole', async () => {
    const t = await hubs.open({ config: { chat: { limits: { maxMessageChars: 200 } } } });
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const side = await a.openSide({ parent: 'general', title: 'a title of some length' });
    const closed = await a.closeSide({ thread: side.id, summary: 'z'.repeat(1000) });
    const [summary] = (await a.history({ thread: 'general', after: closed.summary_seq - 1 })).events;
    expect((summary?.content as string).length).toBe(200);
    expect(closed.truncated).toBe(true);
  });
});

/**
 * Reads as bob right now, in this microtask (the actor's reads first yield to
 * the event loop, which would let the batch commit before they look).
 */
function readNowAs(hub: Hub, handle: string) {
  const { ctx } = hub.internals;
  const caller = { participant: ctx.state.participantByHandle(handle)!, session: ctx.state.sessionByName('s')! };
  return {
    readNew: () => readNew(ctx, { caller, thread: ctx.state.channel(caller.session.id, 'general')!, input: { thread: 'general' }, envelope: undefined }),
    peek: () => readInbox(ctx, caller, {}, { peek: true }),
  };
}

describe('commit visibility', () => {
  it('commit - a post is invisible to readers until its batch commits', async () => {
    const { alice, bob, hub } = await four();
    await bob.readNew({ thread: 'general' });
    const writes = hub.internals.store.writes;
    const posting = alice.post({ thread: 'general', text: 'not yet' });
    await microtasksUntil(() => writes.pending > 0);
    expect(readNowAs(hub, 'bob').readNew().events).toEqual([]);
    expect(readNowAs(hub, 'bob').peek().items).toEqual([]);
    const posted = await posting;
    expect((await bob.readNew({ thread: 'general' })).events.map((e) => e.id)).toEqual([posted.id]);
  });

  it('commit - a rolled-back batch rejects its posts, crashes nothing, and its seqs are never reused', async () => {
    const { alice, bob, hub } = await four();
    const { store, ctx } = hub.internals;
    await bob.readNew({ thread: 'general' });
    const doomed = alice.post({ thread: 'general', text: 'doomed' }).catch((error: unknown) => error);
    await microtasksUntil(() => store.writes.pending > 0);
    const seqInBatch = ctx.state.nextSeq - 1;
    // A cursor write (not awaited by anyone) joins the same batch; then a write fails.
    readNowAs(hub, 'bob').readNew();
    expect(() =>
      store.writes.write(() => {
        throw new Error('disk on fire');
      }),
    ).toThrow('disk on fire');
    expect(await doomed).toMatchObject({ code: 'INTERNAL' });
    const next = await alice.post({ thread: 'general', text: 'after the failure' });
    expect(next.seq).toBeGreaterThan(seqInBatch);
    const read = await bob.readNew({ thread: 'general' });
    expect(read.events.map((e) => e.content)).toEqual(['after the failure']);
  });
});

describe('search index belongs to its store', () => {
  it('search - an index left over from another store is rebuilt, never trusted', async () => {
    const { home, cleanup } = tempHome();
    const files = (name: string) => ['', '-wal', '-shm'].map((suffix) => path.join(home, `${name}${suffix}`));
    try {
      // Store one, with its index.
      let hub = await openHub({ home, logger: createSilentLogger() });
      let a = await hub.join({ handle: 'alice', session: 's' });
      for (let i = 0; i < 3; i++) await a.post({ thread: 'general', text: `apple pie ${i}` });
      await hub.close();
      files('search.db').forEach((f, i) => fs.existsSync(f) && fs.renameSync(f, `${path.join(home, 'old-index')}${i}`));
      for (const f of files('parley.db')) fs.rmSync(f, { force: true });
      // Store two, longer than the old index's watermark.
      hub = await openHub({ home, logger: createSilentLogger() });
      a = await hub.join({ handle: 'alice', session: 's' });
      const bananas = [];
      for (let i = 0; i < 10; i++) bananas.push((await a.post({ thread: 'general', text: `banana split ${i}` })).id);
      await hub.close();
      // Put store one's index back beside store two.
      for (const f of files('search.db')) fs.rmSync(f, { force: true });
      files('search.db').forEach((f, i) => fs.existsSync(`${path.join(home, 'old-index')}${i}`) && fs.renameSync(`${path.join(home, 'old-index')}${i}`, f));
      hub = await openHub({ home, logger: createSilentLogger() });
      a = hub.actor('alice', 's');
      expect((await a.search({ query: 'apple' })).events).toEqual([]);
      expect((await a.search({ query: 'banana', limit: 50 })).events.map((e) => e.id).sort()).toEqual([...bananas].sort());
      await hub.close();
    } finally {
      cleanup();
    }
  });

});
