import { describe, expect, it } from 'vitest';
import type { Actor } from '../../src/hub/actor.js';
import { caught, joinHumanAliceBob, testHubsClosedAfterEach, type TestHub } from '../helpers/hub.js';

const hubs = testHubsClosedAfterEach();

async function trio(config = {}): Promise<{ t: TestHub; human: Actor; alice: Actor; bob: Actor }> {
  const t = await hubs.open({ config });
  const { human, alice, bob } = await joinHumanAliceBob(t.hub);
  // Start everyone with an empty inbox.
  for (const a of [human, alice, bob]) await a.inbox({ limit: 500 });
  return { t, human, alice, bob };
}

describe('inbox', () => {
  it('inbox - priorities: High for DMs, requests, responses, mentions and prods; Normal for subscribed; Low for muted', async () => {
    const { human, alice, bob } = await trio();
    await alice.createChannel({ name: 'quiet', members: ['bob'] });
    await bob.inbox();
    await bob.mute('quiet');
    const dm = await alice.dm({ to: 'bob', text: 'psst' });
    const req = await alice.request({ to: 'bob', intent: 'review' });
    const mention = await human.post({ thread: 'general', text: 'ping @bob' });
    const plain = await human.post({ thread: 'general', text: 'fyi' });
    const muted = await alice.post({ thread: 'quiet', text: 'low noise' });
    const prod = await human.prod('general', ['bob']);
    const reqBack = await bob.request({ to: 'alice', intent: 'q' });
    await alice.respond({ request_id: reqBack.request_id, status: 'Completed' });

    const inbox = await bob.inbox();
    const byId = new Map(inbox.items.map((i) => [i.event.id, i]));
    expect(byId.get(dm.id)).toMatchObject({ priority: 'high', reason: 'dm', wakes: true });
    expect(byId.get(req.id)).toMatchObject({ priority: 'high', reason: 'request' });
    expect(byId.get(mention.id)).toMatchObject({ priority: 'high', reason: 'mention' });
    expect(byId.get(prod.id)).toMatchObject({ priority: 'high', reason: 'prod', respondHint: true });
    expect(byId.get(plain.id)).toMatchObject({ priority: 'normal', reason: 'channel', wakes: true });
    expect(byId.get(muted.id)).toMatchObject({ priority: 'low', reason: 'muted', wakes: false });
    expect(inbox.items.find((i) => i.reason === 'response')).toMatchObject({ priority: 'high' });
    // Ordered by priority, newest first within a priority.
    const ranks = inbox.items.map((i) => ({ high: 0, normal: 1, low: 2 })[i.priority]);
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    const highs = inbox.items.filter((i) => i.priority === 'high').map((i) => i.event.seq);
    expect(highs).toEqual([...highs].sort((a, b) => b - a));
  });

  it('inbox - one’s own events never appear', async () => {
    const { alice, bob } = await trio();
    await alice.post({ thread: 'general', text: 'mine @alice' });
    await alice.dm({ to: 'bob', text: 'also mine' });
    expect((await alice.inbox()).items).toEqual([]);
    expect((await bob.inbox()).items).toHaveLength(2);
  });

  it('inbox - peek does not advance; inbox does, and the same item is not returned twice', async () => {
    const { alice, bob } = await trio();
    const m = await alice.post({ thread: 'general', text: 'hello @bob' });
    const n = await alice.post({ thread: 'general', text: 'and more' });
    const peek1 = await bob.peek();
    const peek2 = await bob.peek();
    // The mention is High and comes first; the plain message is Normal.
    expect(peek1.items.map((i) => i.event.id)).toEqual([m.id, n.id]);
    expect(peek2.items.map((i) => i.event.id)).toEqual(peek1.items.map((i) => i.event.id));
    expect(peek1.items.find((i) => i.event.id === m.id)?.delivery).toBe('pending');
    const taken = await bob.inbox();
    expect(taken.items.map((i) => i.event.id).sort()).toEqual([m.id, n.id].sort());
    expect(taken.items.find((i) => i.event.id === m.id)?.delivery).toBe('delivered');
    expect((await bob.inbox()).items).toEqual([]);
  });

  it('inbox - limit returns a contiguous prefix per thread and the rest next time', async () => {
    const { alice, bob } = await trio();
    const ids: string[] = [];
    for (let i = 0; i < 9; i++) ids.push((await alice.post({ thread: 'general', text: `n${i}` })).id);
    const first = await bob.inbox({ limit: 4 });
    expect(first.more).toBe(true);
    const second = await bob.inbox({ limit: 4 });
    const third = await bob.inbox({ limit: 4 });
    const seen = [...first.items, ...second.items, ...third.items].map((i) => i.event.id);
    expect(seen.sort()).toEqual([...ids].sort());
    expect(third.more).toBe(false);
  });

  it('inbox - ack moves targeted items from delivered to acknowledged', async () => {
    const { alice, bob } = await trio();
    const d = await alice.dm({ to: 'bob', text: 'please ack' });
    const c = await alice.post({ thread: 'general', text: 'no ack needed' });
    await bob.inbox();
    expect((await bob.deliveries('delivered')).map((x) => x.event.id)).toEqual([d.id]);
    const acked = await bob.ack({ ids: [d.id, c.id] });
    expect(acked).toEqual({ acknowledged: 1, not_targeted: [c.id] });
    expect(await bob.deliveries('delivered')).toEqual([]);
    expect((await bob.deliveries('acknowledged')).map((x) => x.event.id)).toEqual([d.id]);
    expect((await bob.ack({ ids: [d.id] })).acknowledged).toBe(0);
  });

  it('inbox - readNew delivers targeted items of that thread', async () => {
    const { alice, bob } = await trio();
    const m = await alice.post({ thread: 'general', text: '@bob look' });
    await bob.readNew({ thread: 'general' });
    expect((await bob.peek()).items).toEqual([]);
    expect((await bob.deliveries('delivered')).map((x) => x.event.id)).toEqual([m.id]);
  });

  it('inbox - unsubscribed threads deliver only what targets me', async () => {
    const { alice, bob } = await trio();
    await bob.unsubscribe('general');
    await alice.post({ thread: 'general', text: 'broadcast' });
    const m = await alice.post({ thread: 'general', text: 'but @bob, you' });
    expect((await bob.inbox()).items.map((i) => i.event.id)).toEqual([m.id]);
  });

  it('inbox - a mention in a muted thread is still High', async () => {
    const { alice, bob } = await trio();
    await bob.mute('general');
    const m = await alice.post({ thread: 'general', text: '@bob urgent' });
    expect((await bob.inbox()).items.find((i) => i.event.id === m.id)?.priority).toBe('high');
  });
});

describe('wait', () => {
  it('wait - resolves as soon as a waking item arrives', async () => {
    const { alice, bob } = await trio();
    const waiting = bob.wait({ timeout_ms: 10_000 });
    const d = await alice.dm({ to: 'bob', text: 'wake up' });
    const result = await waiting;
    expect(result.timedOut).toBe(false);
    expect(result.items.map((i) => i.event.id)).toEqual([d.id]);
  });

  it('wait - returns at once when a waking item is already there', async () => {
    const { alice, bob } = await trio();
    const m = await alice.post({ thread: 'general', text: 'already here' });
    const result = await bob.wait({ timeout_ms: 10_000 });
    expect(result.items.map((i) => i.event.id)).toEqual([m.id]);
  });

  it('wait - Low items do not wake it', async () => {
    const { alice, bob } = await trio();
    await bob.mute('general');
    const controller = new AbortController();
    const waiting = bob.wait({ timeout_ms: 60_000 }, controller.signal);
    await alice.post({ thread: 'general', text: 'muted chatter' });
    // The post is committed and published: had it woken the wait, the wait would hold it.
    controller.abort();
    const result = await waiting;
    expect(result).toEqual({ items: [], more: false, timedOut: false });
    // The Low item was not consumed.
    expect((await bob.inbox()).items.map((i) => i.priority)).toEqual(['low']);
  });

  it('wait - own posts and other sessions do not wake', async () => {
    const { t, bob } = await trio();
    const other = await t.hub.join({ handle: 'alice', session: 'elsewhere' });
    const controller = new AbortController();
    const waiting = bob.wait({ timeout_ms: 60_000 }, controller.signal);
    await bob.post({ thread: 'general', text: 'me talking' });
    await other.post({ thread: 'general', text: 'other session' });
    controller.abort();
    expect(await waiting).toEqual({ items: [], more: false, timedOut: false });
  });

  it('wait - returns empty after its timeout when nothing arrives', async () => {
    const { bob } = await trio();
    expect(await bob.wait({ timeout_ms: 30 })).toEqual({ items: [], more: false, timedOut: true });
  });

  it('wait - the timeout is bounded by inbox.maxWaitTimeoutMs', async () => {
    const { bob } = await trio({ inbox: { maxWaitTimeoutMs: 1000, waitTimeoutMs: 500 } });
    const error = await caught(() => bob.wait({ timeout_ms: 1001 }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.field).toBe('timeout_ms');
    expect(error.message).toContain('1000');
  });

  it('wait - an abort signal ends the wait with nothing', async () => {
    const { bob } = await trio();
    const controller = new AbortController();
    const waiting = bob.wait({ timeout_ms: 10_000 }, controller.signal);
    controller.abort();
    expect(await waiting).toEqual({ items: [], more: false, timedOut: false });
  });
});

describe('readNew', () => {
  it('readNew - returns events after the hub-kept cursor and advances it (newPointer)', async () => {
    const { alice, bob } = await trio();
    const before = await bob.readNew({ thread: 'general' });
    const a = await alice.post({ thread: 'general', text: 'one' });
    const b = await alice.post({ thread: 'general', text: 'two' });
    const read = await bob.readNew({ thread: 'general' });
    expect(read.events.map((e) => e.content)).toEqual(['one', 'two']);
    expect(read.newPointer).toBe(b.seq);
    expect(read.newPointer).toBeGreaterThan(before.newPointer);
    const again = await bob.readNew({ thread: 'general' });
    expect(again).toEqual({ events: [], newPointer: b.seq, more: false });
    expect(a.seq).toBeLessThan(b.seq);
  });

  it('readNew - skips one’s own events but moves past them', async () => {
    const { alice, bob } = await trio();
    await bob.readNew({ thread: 'general' });
    await alice.post({ thread: 'general', text: 'from alice' });
    const mine = await bob.post({ thread: 'general', text: 'from bob' });
    const read = await bob.readNew({ thread: 'general' });
    expect(read.events.map((e) => e.content)).toEqual(['from alice']);
    expect(read.newPointer).toBe(mine.seq);
  });

  it('readNew - pages with limit and more', async () => {
    const { alice, bob } = await trio();
    await bob.readNew({ thread: 'general' });
    for (let i = 0; i < 5; i++) await alice.post({ thread: 'general', text: `p${i}` });
    const one = await bob.readNew({ thread: 'general', limit: 3 });
    const two = await bob.readNew({ thread: 'general', limit: 3 });
    expect(one.events.map((e) => e.content)).toEqual(['p0', 'p1', 'p2']);
    expect(one.more).toBe(true);
    expect(two.events.map((e) => e.content)).toEqual(['p3', 'p4']);
    expect(two.more).toBe(false);
  });

  it('inbox - a DM left pending comes as High after a restart, and a reader with nothing targeted gets none', async () => {
    const { t, alice } = await trio();
    const dm = await alice.dm({ to: 'bob', text: 'still there?' });
    await alice.post({ thread: 'general', text: 'for everyone' });
    const { hub } = await hubs.reopen(t);
    const bobInbox = await hub.actor('bob', 's').inbox();
    expect(bobInbox.items.map((i) => [i.event.seq, i.priority])).toEqual([[dm.seq, 'high'], [dm.seq + 1, 'normal']]);
    // Alice was sent nothing targeted: her inbox holds none of it.
    expect((await hub.actor('alice', 's').inbox()).items).toEqual([]);
  });

  it('readNew - the cursor is kept on the hub across restarts', async () => {
    const { t, alice, bob } = await trio();
    await alice.post({ thread: 'general', text: 'before' });
    await bob.readNew({ thread: 'general' });
    await alice.post({ thread: 'general', text: 'after' });
    const { hub } = await hubs.reopen(t);
    const read = await hub.actor('bob', 's').readNew({ thread: 'general' });
    expect(read.events.map((e) => e.content)).toEqual(['after']);
  });
});
