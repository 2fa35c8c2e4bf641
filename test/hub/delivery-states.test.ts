import { describe, expect, it } from 'vitest';
import type { Actor } from '../../src/hub/actor.js';
import { caught, joinHumanAliceBob, testHubsClosedAfterEach } from '../helpers/hub.js';

const hubs = testHubsClosedAfterEach();

const START = Date.parse('2026-11-24T10:00:00.000Z');
const iso = (ms: number): string => new Date(ms).toISOString();

/** A hub on a clock the test moves, with three participants whose inboxes start empty. */
async function trio(): Promise<{ clock: { now: number }; human: Actor; alice: Actor; bob: Actor }> {
  const clock = { now: START };
  const t = await hubs.open({ now: () => clock.now });
  const { human, alice, bob } = await joinHumanAliceBob(t.hub);
  for (const a of [human, alice, bob]) await a.inbox({ limit: 500 });
  return { clock, human, alice, bob };
}

describe('delivery states', () => {
  it('delivery states - a DM goes pending → delivered → acknowledged, or through a hook pending → injected → acknowledged, each with its time, as its sender sees', async () => {
    const { clock, alice, bob } = await trio();
    const dm = await alice.dm({ to: 'bob', text: 'review my branch?' });
    expect(await alice.sentDeliveries()).toEqual([
      { id: dm.id, seq: dm.seq, thread: expect.objectContaining({ kind: 'dm', with: 'bob' }), to: 'bob', reason: 'dm', state: 'pending' },
    ]);

    clock.now = START + 1_000;
    expect((await bob.inbox()).items.map((i) => [i.event.id, i.delivery])).toEqual([[dm.id, 'delivered']]);
    expect(await alice.sentDeliveries()).toMatchObject([{ to: 'bob', state: 'delivered', delivered_at: iso(START + 1_000) }]);

    // A later injection of an item already read gives nothing new: it was already given to bob.
    expect((await bob.inject()).items).toEqual([]);

    clock.now = START + 5_000;
    await bob.ack({ ids: [dm.id] });
    const [acked] = await alice.sentDeliveries();
    expect(acked).toMatchObject({ state: 'acknowledged', delivered_at: iso(START + 1_000), acknowledged_at: iso(START + 5_000) });
    expect(acked?.injected_at).toBeUndefined();

    // Through a hook: pending → injected (given to the agent, so delivered at that moment too) → acknowledged.
    const second = await alice.dm({ to: 'bob', text: 'and this one?' });
    clock.now = START + 7_000;
    expect((await bob.inject()).items.map((i) => i.id)).toEqual([second.id]);
    expect((await alice.sentDeliveries())[0]).toEqual({
      id: second.id,
      seq: second.seq,
      thread: expect.objectContaining({ kind: 'dm', with: 'bob' }),
      to: 'bob',
      reason: 'dm',
      state: 'injected',
      delivered_at: iso(START + 7_000),
      injected_at: iso(START + 7_000),
    });
    clock.now = START + 9_000;
    await bob.ack({ ids: [second.id] });
    expect((await alice.sentDeliveries())[0]).toMatchObject({
      state: 'acknowledged',
      delivered_at: iso(START + 7_000),
      injected_at: iso(START + 7_000),
      acknowledged_at: iso(START + 9_000),
    });
  });

  it('delivery states - inject returns new waking items once, oldest first, compact, and marks targeted ones injected', async () => {
    const { clock, human, alice, bob } = await trio();
    const dm = await alice.dm({ to: 'bob', text: 'psst' });
    const plain = await human.post({ thread: 'general', text: 'fyi, standup moved' });
    const request = await alice.request({ to: 'bob', intent: 'review', params: { pr: 7 } });

    clock.now = START + 2_000;
    const first = await bob.inject();
    expect(first).toEqual({
      items: [
        { id: dm.id, seq: dm.seq, ts: iso(START), priority: 'high', reason: 'dm', thread: expect.any(String), with: 'alice', from: 'alice', text: 'psst', respond: true },
        { id: plain.id, seq: plain.seq, ts: iso(START), priority: 'normal', reason: 'channel', thread: 'general', from: 'human', text: 'fyi, standup moved', respond: true },
        expect.objectContaining({ id: request.id, priority: 'high', reason: 'request', from: 'alice', type: 'request' }),
      ],
      head: request.seq,
    });
    expect(JSON.parse(first.items[2]?.text ?? '')).toMatchObject({ intent: 'review', params: { pr: 7 } });

    // Each item once: a second call, and a consuming inbox read, find nothing new.
    expect((await bob.inject()).items).toEqual([]);
    expect((await bob.inbox()).items).toEqual([]);

    const states = await alice.sentDeliveries();
    expect(states.map((d) => [d.id, d.state, d.injected_at, d.delivered_at])).toEqual([
      [request.id, 'injected', iso(START + 2_000), iso(START + 2_000)],
      [dm.id, 'injected', iso(START + 2_000), iso(START + 2_000)],
    ]);
    expect((await bob.deliveries('injected')).map((d) => d.event.id)).toEqual([request.id, dm.id]);
  });

  it('delivery states - an injection peeks, marking nothing, then takes exactly the items it saw: a DM posted meanwhile is left for the next call', async () => {
    const { clock, human, alice, bob } = await trio();
    const dm = await alice.dm({ to: 'bob', text: 'first' });
    const plain = await human.post({ thread: 'general', text: 'channel news' });

    const seen = await bob.inject({ peek: true });
    expect(seen.items.map((i) => i.id)).toEqual([dm.id, plain.id]);
    expect(seen.head).toBe(plain.seq);
    // A peek marks nothing and moves no cursor: a second peek sees the same, the DM is still pending.
    expect((await bob.inject({ peek: true })).items.map((i) => i.id)).toEqual([dm.id, plain.id]);
    expect((await alice.sentDeliveries()).map((d) => d.state)).toEqual(['pending']);

    // While the model runs, a second DM and a channel message arrive; the commit takes only what the peek saw.
    const later = await alice.dm({ to: 'bob', text: 'second' });
    const laterPlain = await human.post({ thread: 'general', text: 'more news' });
    clock.now = START + 3_000;
    const taken = await bob.inject({ take: seen.items.map((i) => i.seq) });
    expect(taken.items.map((i) => i.id)).toEqual([dm.id, plain.id]);
    // Taken once: taking them again takes nothing.
    expect((await bob.inject({ take: seen.items.map((i) => i.seq) })).items).toEqual([]);
    expect((await alice.sentDeliveries()).map((d) => [d.id, d.state])).toEqual([
      [later.id, 'pending'],
      [dm.id, 'injected'],
    ]);

    // The next call gets exactly what arrived meanwhile.
    expect((await bob.inject()).items.map((i) => i.id)).toEqual([later.id, laterPlain.id]);
    expect((await bob.inject()).items).toEqual([]);
  });

  it('delivery states - taking what a peek showed takes nothing that became waking meanwhile: a thread unmuted during the model call keeps its messages for the next call', async () => {
    const { human, alice, bob } = await trio();
    await bob.mute('general');
    const notes = [];
    for (let i = 1; i <= 3; i++) notes.push(await human.post({ thread: 'general', text: `design note ${i}` }));
    const dm = await alice.dm({ to: 'bob', text: 'unmute the channel and catch up' });
    const seen = await bob.inject({ peek: true });
    expect(seen.items.map((i) => i.id)).toEqual([dm.id]);
    // The model's tools unmute the channel before the call's commit.
    await bob.subscribe('general');
    expect((await bob.inject({ take: seen.items.map((i) => i.seq) })).items.map((i) => i.id)).toEqual([dm.id]);
    // The notes were never shown: the next call gets them.
    expect((await bob.inject({ peek: true })).items.map((i) => i.id)).toEqual(notes.map((n) => n.id));
  });

  it('delivery states - taking items another read already took (the agent\'s own inbox tool) changes nothing and lists none; a channel message taken moves only its thread\'s cursor to it', async () => {
    const { human, alice, bob } = await trio();
    await alice.createChannel({ name: 'ops', members: ['bob'] });
    await bob.inbox();
    const dm = await alice.dm({ to: 'bob', text: 'read me' });
    const first = await human.post({ thread: 'general', text: 'one' });
    const ops = await alice.post({ thread: 'ops', text: 'ops news' });
    const seen = await bob.inject({ peek: true });
    expect(seen.items.map((i) => i.id)).toEqual([dm.id, first.id, ops.id]);
    const later = await human.post({ thread: 'general', text: 'two' });
    await bob.readNew({ thread: 'ops' });
    const taken = await bob.inject({ take: [dm.seq, first.seq, ops.seq] });
    expect(taken.items.map((i) => i.id)).toEqual([dm.id, first.id]);
    expect((await bob.inject({ peek: true })).items.map((i) => i.id)).toEqual([later.id]);
  });

  it('delivery states - taking a DM moves the DM thread\'s cursor past it, as a consuming read does, so later reads do not walk the thread\'s history again', async () => {
    const { alice, bob } = await trio();
    const dm = await alice.dm({ to: 'bob', text: 'first' });
    const seen = await bob.inject({ peek: true });
    await bob.inject({ take: seen.items.map((i) => i.seq) });
    expect((await bob.readNew({ thread: '@alice' })).events.map((e) => e.id)).toEqual([]);
    // What was not shown stays behind the cursor: a DM that arrives later is still new.
    const later = await alice.dm({ to: 'bob', text: 'second' });
    expect((await bob.readNew({ thread: '@alice' })).events.map((e) => e.id)).toEqual([later.id]);
    expect(dm.id).not.toBe(later.id);
  });

  it('delivery states - an injection peeked but never taken (the model call failed) leaves every item for the next one', async () => {
    const { alice, bob } = await trio();
    const dm = await alice.dm({ to: 'bob', text: 'do not lose me' });
    expect((await bob.inject({ peek: true })).items.map((i) => i.id)).toEqual([dm.id]);
    expect((await bob.inject({ peek: true, limit: 1 })).items.map((i) => i.id)).toEqual([dm.id]);
    expect((await bob.inject()).items.map((i) => i.id)).toEqual([dm.id]);
  });

  it('delivery states - bad injection input names the field and changes nothing', async () => {
    const { alice, bob } = await trio();
    await alice.dm({ to: 'bob', text: 'still here' });
    expect(await caught(() => bob.inject({ take: [-1] }))).toMatchObject({ code: 'INVALID_INPUT', field: 'take.0' });
    expect(await caught(() => bob.inject({ take: [] }))).toMatchObject({ code: 'INVALID_INPUT', field: 'take' });
    expect(await caught(() => bob.inject({ peek: true, take: [1] }))).toMatchObject({ code: 'INVALID_INPUT', field: 'take' });
    expect(await caught(() => bob.inject({ peek: 'yes' as never }))).toMatchObject({ code: 'INVALID_INPUT', field: 'peek' });
    expect((await alice.sentDeliveries()).map((d) => d.state)).toEqual(['pending']);
  });

  it('delivery states - a peeking wait returns what woke it and marks nothing', async () => {
    const { alice, bob } = await trio();
    const waiting = bob.wait({ timeout_ms: 5_000, peek: true });
    const dm = await alice.dm({ to: 'bob', text: 'wake up' });
    const woke = await waiting;
    expect(woke.items.map((i) => [i.event.id, i.delivery])).toEqual([[dm.id, 'pending']]);
    expect((await alice.sentDeliveries()).map((d) => d.state)).toEqual(['pending']);
    // Already there: a peeking wait answers at once, still marking nothing.
    expect((await bob.wait({ timeout_ms: 5_000, peek: true })).items.map((i) => i.event.id)).toEqual([dm.id]);
    expect((await bob.inject()).items.map((i) => i.id)).toEqual([dm.id]);
  });

  it('delivery states - inject leaves muted (non-waking) items readable: the cursor does not pass them', async () => {
    const { alice, bob } = await trio();
    await alice.createChannel({ name: 'quiet', members: ['bob'] });
    await bob.inbox();
    await bob.mute('quiet');
    const low = await alice.post({ thread: 'quiet', text: 'low noise' });
    const dm = await alice.dm({ to: 'bob', text: 'but this matters' });
    expect((await bob.inject()).items.map((i) => i.id)).toEqual([dm.id]);
    expect((await bob.inbox()).items.map((i) => [i.event.id, i.priority])).toEqual([[low.id, 'low']]);
  });

  it('delivery states - under wakeOn addressed, inject gives what is addressed and leaves channel messages readable, unread', async () => {
    const { alice, bob } = await trio();
    await bob.updateProfile({ wakeOn: 'addressed' });
    const chatter = await alice.post({ thread: 'general', text: 'channel chatter' });
    const mention = await alice.post({ thread: 'general', text: '@bob over to you' });
    const dm = await alice.dm({ to: 'bob', text: 'a direct word' });
    expect((await bob.inject()).items.map((i) => i.id).sort()).toEqual([mention.id, dm.id].sort());
    // The channel message did not wake bob, so it was not put into his context: it is still new to him.
    expect((await bob.peek()).items.map((i) => [i.event.id, i.wakes])).toEqual([[chatter.id, false]]);
  });

  it('delivery states - an injected item never goes back to delivered; answering in the thread acknowledges it', async () => {
    const { clock, alice, bob } = await trio();
    const dm = await alice.dm({ to: 'bob', text: 'are you there?' });
    const unseen = await alice.post({ thread: 'general', text: '@bob later' });
    clock.now = START + 1_000;
    await bob.inject({ limit: 1 });
    // A consuming read of the DM thread after the injection keeps it injected.
    await bob.readNew({ thread: dm.thread });
    expect((await alice.sentDeliveries()).find((d) => d.id === dm.id)?.state).toBe('injected');

    clock.now = START + 3_000;
    await bob.dm({ to: 'alice', text: 'yes' });
    expect((await alice.sentDeliveries()).map((d) => [d.id, d.state, d.acknowledged_at])).toEqual([
      // The mention bob was never given is not acknowledged by his answer elsewhere.
      [unseen.id, 'pending', undefined],
      [dm.id, 'acknowledged', iso(START + 3_000)],
    ]);
  });

  it('delivery states - delivered or injected but not acknowledged after N ms, for the recipient and the sender', async () => {
    const { clock, alice, bob } = await trio();
    const old = await alice.dm({ to: 'bob', text: 'old' });
    await bob.inbox();
    clock.now = START + 10 * 60_000;
    const fresh = await alice.dm({ to: 'bob', text: 'fresh' });
    await bob.inject();
    clock.now = START + 12 * 60_000;

    const fiveMinutes = 5 * 60_000;
    expect((await bob.deliveries('unacknowledged', 100, fiveMinutes)).map((d) => d.event.id)).toEqual([old.id]);
    expect((await bob.deliveries('unacknowledged')).map((d) => d.event.id)).toEqual([fresh.id, old.id]);
    expect((await alice.sentDeliveries({ state: 'unacknowledged', older_than_ms: fiveMinutes })).map((d) => d.id)).toEqual([old.id]);
    expect((await alice.sentDeliveries({ state: 'injected', older_than_ms: 0 })).map((d) => d.id)).toEqual([fresh.id]);
  });

  it('delivery states - bad input names the field: an unknown state, a negative age', async () => {
    const { alice, bob } = await trio();
    expect(await caught(() => bob.deliveries('seen' as never))).toMatchObject({ code: 'INVALID_INPUT', field: 'state' });
    expect(await caught(() => bob.deliveries('delivered', 100, -1))).toMatchObject({ code: 'INVALID_INPUT', field: 'older_than_ms' });
    expect(await caught(() => alice.sentDeliveries({ state: 'read' as never }))).toMatchObject({ code: 'INVALID_INPUT', field: 'state' });
    expect(await caught(() => alice.sentDeliveries({ older_than_ms: -60_000 }))).toMatchObject({ code: 'INVALID_INPUT', field: 'older_than_ms' });
    expect(await caught(() => bob.inject({ limit: 0 }))).toMatchObject({ code: 'INVALID_INPUT', field: 'limit' });
  });
});
