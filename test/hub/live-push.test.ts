import { describe, expect, it } from 'vitest';
import type { ParleyError } from '../../src/errors/parley-error.js';
import type { LiveItem } from '../../src/hub/index.js';
import { testHubsClosedAfterEach } from '../helpers/hub.js';

/**
 * A live subscription in push mode (what the SSE route uses): items reach the
 * sink in the turn they are published, in seq order, after the replay of what
 * came before `since`; a full sink holds them back until it resumes, and one
 * that stays full is cut off with SLOW_CONSUMER as an iterating consumer is.
 */
const hubs = testHubsClosedAfterEach();

const seqOf = (item: LiveItem): number => (item.kind === 'event' ? item.event.seq : -1);

function sinkInto(accept: (taken: number) => boolean = () => true) {
  const items: LiveItem[] = [];
  const ends: Array<ParleyError | undefined> = [];
  return {
    items,
    ends,
    sink: {
      item: (item: LiveItem): boolean => {
        items.push(item);
        return accept(items.length);
      },
      end: (error?: ParleyError): void => void ends.push(error),
    },
  };
}

describe('live subscription in push mode', () => {
  it('live push - a post is in the sink when the post returns, after the replay of what came before', async () => {
    const t = await hubs.open({ config: { chat: { limits: { writesPerMinute: 0 } } } });
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    const start = (await a.post({ thread: 'general', text: 'before' })).seq;
    // More than one replay page (500), so replay reads the store page by page.
    const missed = await Promise.all(Array.from({ length: 620 }, (_, i) => a.post({ thread: 'general', text: `missed ${i}` })));
    const live = b.live({ since: start, ephemeral: false });
    const { items, ends, sink } = sinkInto();
    live.pipe(sink);
    expect(items.map(seqOf)).toEqual(missed.map((p) => p.seq));

    const next = await a.post({ thread: 'general', text: 'live' });
    // No await between the commit and the sink: it already has the event.
    expect(items.at(-1)).toMatchObject({ kind: 'event', event: { seq: next.seq, content: 'live' } });
    expect(items).toHaveLength(missed.length + 1);

    live.close();
    live.close();
    expect(ends).toEqual([undefined]);
    await a.post({ thread: 'general', text: 'after the end' });
    expect(items).toHaveLength(missed.length + 1);
  });

  it('live push - a full sink gets nothing until it resumes, then everything in order', async () => {
    const t = await hubs.open({ config: { chat: { limits: { writesPerMinute: 0 } } } });
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    const live = b.live({ ephemeral: false });
    let room = 1;
    const { items, ends, sink } = sinkInto(() => --room > 0);
    live.pipe(sink);
    const posted = [];
    for (let i = 0; i < 5; i++) posted.push(await a.post({ thread: 'general', text: `m${i}` }));
    // Full after the first: the other four wait in the queue.
    expect(items.map(seqOf)).toEqual([posted[0]!.seq]);
    // The sink takes the item it answers false to: three more, then full again.
    room = 3;
    live.resume();
    expect(items.map(seqOf)).toEqual(posted.slice(0, 4).map((p) => p.seq));
    room = 100;
    live.resume();
    expect(items.map(seqOf)).toEqual(posted.map((p) => p.seq));
    live.close();
    expect(ends).toEqual([undefined]);
  });

  it('live push - a sink that stays full is cut off with SLOW_CONSUMER, told where to resume', async () => {
    const t = await hubs.open({ config: { inbox: { liveQueueLimit: 16 }, chat: { limits: { writesPerMinute: 0 } } } });
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    const live = b.live({ ephemeral: false });
    const { items, ends, sink } = sinkInto(() => false);
    live.pipe(sink);
    const posted = [];
    for (let i = 0; i < 20; i++) posted.push(await a.post({ thread: 'general', text: `m${i}` }));
    expect(items.map(seqOf)).toEqual([posted[0]!.seq]);
    expect(ends).toHaveLength(1);
    expect(ends[0]).toMatchObject({ code: 'SLOW_CONSUMER', details: { since: posted[0]!.seq } });
    expect(t.hub.stats().liveListeners).toBe(0);
  });

  it('live push - piping a subscription that has already ended tells the sink at once', async () => {
    const t = await hubs.open();
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    const live = b.live({ ephemeral: false });
    live.close();
    const { ends, sink } = sinkInto();
    live.pipe(sink);
    expect(ends).toEqual([undefined]);
    expect(() => live.pipe(sinkInto().sink)).toThrow(/one sink only/);
  });
});
