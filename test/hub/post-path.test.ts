import { describe, expect, it } from 'vitest';
import { testHubsClosedAfterEach } from '../helpers/hub.js';

const hubs = testHubsClosedAfterEach();

describe('the post path', () => {
  it('post path - answering after a restart acknowledges what was delivered before it (the unacknowledged pairs are read from the store)', async () => {
    const first = await hubs.open();
    const alice = await first.hub.join({ handle: 'alice', session: 's' });
    const bob = await first.hub.join({ handle: 'bob', session: 's' });
    await alice.post({ thread: 'general', text: '@bob can you look at the cache numbers?' });
    expect((await bob.inbox()).items.map((i) => i.delivery)).toEqual(['delivered']);

    const second = await hubs.reopen(first);
    const bobAgain = await second.hub.join({ handle: 'bob', session: 's' });
    const aliceAgain = await second.hub.join({ handle: 'alice', session: 's' });
    await bobAgain.post({ thread: 'general', text: 'looking now' });
    expect((await aliceAgain.sentDeliveries()).map((d) => [d.to, d.state])).toEqual([['bob', 'acknowledged']]);
  });

  it('post path - answering in a thread with nothing addressed to the author leaves its deliveries elsewhere as they were', async () => {
    const t = await hubs.open();
    const alice = await t.hub.join({ handle: 'alice', session: 's' });
    const bob = await t.hub.join({ handle: 'bob', session: 's' });
    await alice.createChannel({ name: 'ops' });
    await alice.post({ thread: 'ops', text: '@bob the deploy is yours' });
    await bob.inbox();
    await bob.post({ thread: 'general', text: 'elsewhere' });
    expect((await alice.sentDeliveries()).map((d) => d.state)).toEqual(['delivered']);
    await bob.post({ thread: 'ops', text: 'on it' });
    expect((await alice.sentDeliveries()).map((d) => d.state)).toEqual(['acknowledged']);
  });

  it('post path - each author\'s last sender_seq is stored with the batch of its events, and counting goes on after a restart', async () => {
    const first = await hubs.open();
    const alice = await first.hub.join({ handle: 'alice', session: 's' });
    const bob = await first.hub.join({ handle: 'bob', session: 's' });
    const { store } = first.hub.internals;
    const general = (await alice.threads()).find((t) => t.name === 'general')?.id ?? '';
    const [a0, b0] = [store.senders.lastSeq(alice.participant.id, general), store.senders.lastSeq(bob.participant.id, general)];
    // One batch: all five posts start in the same turn.
    const posts = await Promise.all([
      alice.post({ thread: 'general', text: 'a1' }),
      bob.post({ thread: 'general', text: 'b1' }),
      alice.post({ thread: 'general', text: 'a2' }),
      alice.post({ thread: 'general', text: 'a3' }),
      bob.post({ thread: 'general', text: 'b2' }),
    ]);
    expect(posts.every((p) => p.thread === general)).toBe(true);
    expect(store.senders.lastSeq(alice.participant.id, general)).toBe(a0 + 3);
    expect(store.senders.lastSeq(bob.participant.id, general)).toBe(b0 + 2);
    const senderSeqs = posts.map((p) => store.events.byId(p.id)?.sender_seq);
    expect(senderSeqs).toEqual([a0 + 1, b0 + 1, a0 + 2, a0 + 3, b0 + 2]);

    const second = await hubs.reopen(first);
    const aliceAgain = await second.hub.join({ handle: 'alice', session: 's' });
    const next = await aliceAgain.post({ thread: 'general', text: 'a4' });
    expect(second.hub.internals.store.events.byId(next.id)?.sender_seq).toBe(a0 + 4);
  });
});
