import { describe, expect, it } from 'vitest';
import type { Actor } from '../../src/hub/actor.js';
import type { ShownEventRow } from '../../src/store/event-log.js';
import { joinHumanAliceBob, testHubsClosedAfterEach, type TestHub } from '../helpers/hub.js';

const hubs = testHubsClosedAfterEach();

/** Records which threads the inbox reads rows from, and how many rows. */
function watchReads(t: TestHub): { threads: string[]; rows: number; reset(): void } {
  const events = t.hub.internals.store.events;
  const readAfter = events.readAfter.bind(events);
  const seen = {
    threads: [] as string[],
    rows: 0,
    reset(): void {
      seen.threads = [];
      seen.rows = 0;
    },
  };
  events.readAfter = (threadId: string, afterSeq: number, limit: number): ShownEventRow[] => {
    const rows = readAfter(threadId, afterSeq, limit);
    seen.threads.push(threadId);
    seen.rows += rows.length;
    return rows;
  };
  return seen;
}

async function channels(alice: Actor, bob: Actor, n: number): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (let i = 0; i < n; i++) {
    const info = await alice.createChannel({ name: `c${i}` });
    await bob.subscribe(`c${i}`);
    ids.set(`c${i}`, info.id);
  }
  return ids;
}

describe('inbox - threads with something past the cursor', () => {
  it('inbox pending - an up-to-date reader reads no thread; after one new message it reads only that thread', async () => {
    const t = await hubs.open();
    const { alice, bob } = await joinHumanAliceBob(t.hub);
    const ids = await channels(alice, bob, 6);
    await alice.post({ thread: 'c1', text: 'before' });
    expect((await bob.inbox({ limit: 500 })).items.map((i) => i.event.content)).toContain('before');
    const reads = watchReads(t);

    expect(await bob.inbox()).toEqual({ items: [], more: false });
    expect(await bob.peek()).toEqual({ items: [], more: false });
    expect(reads.threads).toEqual([]);

    const news = await alice.post({ thread: 'c4', text: 'news' });
    const peeked = await bob.peek();
    expect(peeked.items.map((i) => i.event.id)).toEqual([news.id]);
    // A peek moves no cursor: the thread is read again by the next read, and by nothing after that.
    const read = await bob.inbox();
    expect(read.items.map((i) => i.event.id)).toEqual([news.id]);
    expect(await bob.inbox()).toEqual({ items: [], more: false });
    expect(new Set(reads.threads)).toEqual(new Set([ids.get('c4')]));
    expect(reads.threads).toHaveLength(2);
  });

  it('inbox pending - many threads with unread: the oldest come first with more, reading only the first row of most threads', async () => {
    const t = await hubs.open({ config: { chat: { limits: { writesPerMinute: 0 } } } });
    const { alice, bob } = await joinHumanAliceBob(t.hub);
    await channels(alice, bob, 20);
    await bob.inbox({ limit: 500 });
    const posted: number[] = [];
    for (let round = 0; round < 12; round++) {
      for (let i = 0; i < 20; i++) posted.push((await alice.post({ thread: `c${i}`, text: `r${round} c${i}` })).seq);
    }
    const reads = watchReads(t);
    const peek = await bob.peek({ limit: 3 });
    expect(peek.more).toBe(true);
    expect(peek.items.map((i) => i.event.seq)).toEqual(posted.slice(0, 3).reverse());
    // 240 unread rows: the first thread read whole (12 rows), then one row from each of the others, and the rest
    // of a thread only while its rows can still be among the three oldest (the second's); 164 with pages of 8.
    expect(reads.rows).toBeLessThanOrEqual(12 + 12 + 18 + 11);

    // Consuming reads take them all, oldest first, each once.
    const taken: number[] = [];
    for (;;) {
      const page = await bob.inbox({ limit: 7 });
      taken.push(...page.items.map((i) => i.event.seq).reverse());
      if (!page.more) break;
    }
    expect(taken).toEqual(posted);
    expect(await bob.peek()).toEqual({ items: [], more: false });
  });

  it('inbox pending - a thread unsubscribed then subscribed again still gives what was posted past the cursor', async () => {
    const t = await hubs.open();
    const { alice, bob } = await joinHumanAliceBob(t.hub);
    await channels(alice, bob, 2);
    await bob.inbox({ limit: 500 });
    await bob.unsubscribe('c1');
    const missed = await alice.post({ thread: 'c1', text: 'while away' });
    expect((await bob.inbox()).items).toEqual([]);
    expect((await bob.inbox()).items).toEqual([]);
    await bob.subscribe('c1');
    expect((await bob.inbox()).items.map((i) => i.event.id)).toEqual([missed.id]);
  });

  it('inbox pending - a new hub on the same home gives what was left unread', async () => {
    const t = await hubs.open();
    const { alice, bob } = await joinHumanAliceBob(t.hub);
    await channels(alice, bob, 3);
    await bob.inbox({ limit: 500 });
    const left = await alice.post({ thread: 'c2', text: 'left unread' });
    expect((await bob.peek()).items.map((i) => i.event.id)).toEqual([left.id]);
    const again = await hubs.reopen(t);
    const bobAgain = await again.hub.join({ handle: 'bob', session: 's' });
    expect((await bobAgain.inbox()).items.map((i) => i.event.id)).toEqual([left.id]);
  });

  it('inbox pending - targeted items among a page of channel messages come once, as High; the rest as Normal', async () => {
    const t = await hubs.open();
    const { alice, bob } = await joinHumanAliceBob(t.hub);
    await channels(alice, bob, 1);
    await bob.inbox({ limit: 500 });
    const m1 = await alice.post({ thread: 'general', text: 'one' });
    const at = await alice.post({ thread: 'general', text: 'two @bob' });
    const elsewhere = await alice.post({ thread: 'c0', text: 'three @bob' });
    const m4 = await alice.post({ thread: 'general', text: 'four' });
    const dm = await alice.dm({ to: 'bob', text: 'five' });
    const m6 = await alice.post({ thread: 'general', text: 'six' });
    const read = await bob.inbox();
    expect(read.items.map((i) => [i.priority, i.event.id])).toEqual([
      ['high', dm.id],
      ['high', elsewhere.id],
      ['high', at.id],
      ['normal', m6.id],
      ['normal', m4.id],
      ['normal', m1.id],
    ]);
    expect(await bob.inbox()).toEqual({ items: [], more: false });
  });

  it('inbox pending - an injection that fills its limit and then meets a message it holds back says nothing more is waiting', async () => {
    const t = await hubs.open();
    const { alice, bob } = await joinHumanAliceBob(t.hub);
    await bob.inbox({ limit: 500 });
    await bob.updateProfile({ wakeOn: 'addressed' });
    const chatter = await alice.post({ thread: 'general', text: 'channel chatter' });
    const dm = await alice.dm({ to: 'bob', text: 'a direct word' });
    const injected = await bob.inject({ limit: 1 });
    expect(injected.items.map((i) => i.id)).toEqual([dm.id]);
    expect(injected.more).toBeUndefined();
    expect((await bob.peek()).items.map((i) => i.event.id)).toEqual([chatter.id]);
  });
});

