import { afterEach, describe, expect, it, vi } from 'vitest';
import { sseFrame } from '../../src/http/sse.js';
import type { LiveItem } from '../../src/hub/index.js';
import { testHubsClosedAfterEach } from '../helpers/hub.js';
import { takeItems } from '../helpers/live-items.js';

/** One event reaches every subscriber as the same item, and its SSE frame is serialised and encoded to bytes once for all of them. */
const hubs = testHubsClosedAfterEach();
afterEach(() => vi.restoreAllMocks());

describe('SSE frames', () => {
  it('a post seen by many subscribers is encoded once, and each gets the same frame', async () => {
    const t = await hubs.open();
    const poster = await t.hub.join({ handle: 'poster', session: 's' });
    const readers = [];
    for (let i = 0; i < 5; i++) readers.push(await t.hub.join({ handle: `reader-${i}`, session: 's' }));
    const streams = readers.map((reader) => reader.live({ thread: 'general', ephemeral: false }));
    await poster.post({ thread: 'general', text: 'the cache layer is drafted — naïve LRU first' });
    const items: LiveItem[] = [];
    for (const stream of streams) items.push(...(await takeItems(stream, 1)));
    for (const stream of streams) stream.close();
    expect(items).toHaveLength(5);
    const stringify = vi.spyOn(JSON, 'stringify');
    const encode = vi.spyOn(Buffer, 'from');
    const frames = items.map((item) => sseFrame(item));
    expect(stringify).toHaveBeenCalledTimes(1);
    expect(encode).toHaveBeenCalledTimes(1);
    // The very same buffer for every subscriber: the socket writes take it as it is, with no encoding per write.
    expect(new Set(frames).size).toBe(1);
    expect(Buffer.isBuffer(frames[0])).toBe(true);
    const event = (items[0] as Extract<LiveItem, { kind: 'event' }>).event;
    const text = frames[0]!.toString('utf8');
    expect(text).toBe(`id: ${event.seq}\nevent: event\ndata: ${JSON.stringify(event)}\n\n`);
    expect(frames[0]!.byteLength).toBe(Buffer.byteLength(text, 'utf8'));
    expect(JSON.parse(text.split('\n')[2]!.slice('data: '.length))).toMatchObject({ content: 'the cache layer is drafted — naïve LRU first' });
  });
});
