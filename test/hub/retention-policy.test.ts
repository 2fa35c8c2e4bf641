import { describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { nextChunkSize, retentionFor, type RetainedThread } from '../../src/hub/retention.js';
import { testHubsClosedAfterEach } from '../helpers/hub.js';

/**
 * Which limits a thread gets: the config's, a channel's own (its access
 * policy, through the seam), its parent channel's for a side channel, the
 * config's for a DM, and archive hours on an archive hub; and the pruner runs
 * by itself with the hub and stops with it.
 */
const config = parseConfig({ retention: { hours: 72, messages: 10_000, archiveHours: 720 } }).retention;
const channel: RetainedThread = { id: 'c', kind: 'channel', createdSeq: 1, pinned: false };
const side: RetainedThread = { id: 's', kind: 'side', parentId: 'c', createdSeq: 5, pinned: false };
const dm: RetainedThread = { id: 'd', kind: 'dm', createdSeq: 2, pinned: false };
const byId = (threads: RetainedThread[]) => (id: string) => threads.find((t) => t.id === id);

const hubs = testHubsClosedAfterEach();

describe('retention policy', () => {
  it('retention - the config’s limits by default; a channel’s own limits reach its side channels, never a DM', () => {
    expect(retentionFor(config, channel, byId([channel]))).toEqual({ hours: 72, messages: 10_000 });
    const seams = { channelLimits: (c: RetainedThread) => (c.id === 'c' ? { hours: 1 } : { messages: 5 }) };
    expect(retentionFor(config, channel, byId([channel]), seams)).toEqual({ hours: 1, messages: 10_000 });
    expect(retentionFor(config, side, byId([channel, side]), seams)).toEqual({ hours: 1, messages: 10_000 });
    expect(retentionFor(config, dm, byId([dm]), seams)).toEqual({ hours: 72, messages: 10_000 });
  });

  it('retention - a pinned channel keeps its side channels; an archive hub keeps archiveHours with no count cap', () => {
    expect(retentionFor(config, side, byId([{ ...channel, pinned: true }, side]))).toBe('keep');
    expect(retentionFor(config, channel, byId([channel]), { isArchive: () => true })).toEqual({ hours: 720, messages: Infinity });
  });

  it('retention - chunk sizes follow the time budget, at most doubling, within bounds', () => {
    expect(nextChunkSize(250, 8, 4, 16, 1000)).toBe(125);
    expect(nextChunkSize(250, 1, 4, 16, 1000)).toBe(500);
    expect(nextChunkSize(20, 100, 4, 16, 1000)).toBe(16);
    expect(nextChunkSize(800, 0, 4, 16, 1000)).toBe(1000);
  });

  it('retention - the hub prunes by itself every intervalMs, and a channel policy given to the hub applies', async () => {
    let now = Date.parse('2026-11-24T08:00:00Z');
    let design = '';
    const t = await hubs.open({
      now: () => now,
      config: { retention: { intervalMs: 20, hours: 1000 } },
      retention: { channelLimits: (c) => (c.id === design ? { messages: 2 } : undefined) },
    });
    const alice = await t.hub.join({ handle: 'alice', session: 's' });
    design = (await alice.createChannel({ name: 'design' })).id;
    for (const text of ['a', 'b', 'c', 'd']) {
      await alice.post({ thread: 'design', text });
      await alice.post({ thread: 'general', text });
    }
    now += 1;
    await vi.waitFor(async () => {
      const { events } = await alice.history({ thread: 'design', limit: 10 });
      expect(events.filter((e) => e.type === 'message').map((e) => e.content)).toEqual(['c', 'd']);
    });
    const general = await alice.history({ thread: 'general', limit: 10 });
    expect(general.events.filter((e) => e.type === 'message')).toHaveLength(4);
  });

  it('retention - closing the hub stops a pass under way at its next chunk, and the store stays whole', async () => {
    let now = Date.parse('2026-11-24T08:00:00Z');
    const t = await hubs.open({ now: () => now, config: { chat: { limits: { writesPerMinute: 0 } }, retention: { intervalMs: 86_400_000, hours: 1, chunkBudgetMs: 0.2 } } });
    const hub = t.hub;
    const alice = await hub.join({ handle: 'alice', session: 's' });
    for (let i = 0; i < 2000; i += 100) await Promise.all(Array.from({ length: 100 }, (_, j) => alice.post({ thread: 'general', text: `m${i + j}` })));
    const before = hub.stats().events;
    now += 2 * 3_600_000;
    const pass = hub.prune();
    // Closed once the first chunk has committed.
    await vi.waitFor(() => expect(hub.stats().events).toBeLessThan(before), { interval: 1 });
    await hub.close();
    const report = await pass;
    expect(report.events).toBeGreaterThan(0);
    // The store's newest message always stays: 1999 can go in all.
    expect(report.events).toBeLessThan(1999);
    const reopened = await hubs.reopen(t, { now: () => now, config: { retention: { intervalMs: 86_400_000, hours: 1 } } });
    expect(reopened.hub.integrityCheck()).toBe('ok');
    expect((await reopened.hub.prune()).events).toBe(1999 - report.events);
  });
});
