import { describe, expect, it } from 'vitest';
import { ReadGate } from '../../src/hub/read-gate.js';
import { testHubsClosedAfterEach } from '../helpers/hub.js';

const hubs = testHubsClosedAfterEach();

const BIG = 'x'.repeat(4000);

describe('bounded reads', () => {
  it('bounded reads - a history page stops at chat.limits.maxReadBytes, says there is more, and paging covers every event once', async () => {
    const t = await hubs.open({ config: { chat: { limits: { maxReadBytes: 32 * 1024, writesPerMinute: 0 } } } });
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const posted: string[] = [];
    for (let i = 0; i < 60; i++) posted.push((await a.post({ thread: 'general', text: `${i} ${BIG}` })).id);
    const newest = await a.history({ thread: 'general', limit: 500 });
    expect(newest.more).toBe(true);
    expect(newest.events.length).toBeGreaterThan(1);
    expect(newest.events.length).toBeLessThanOrEqual(8);
    expect(newest.events.at(-1)?.id).toBe(posted.at(-1));
    // Forward paging from the start reaches every message exactly once.
    const seen: string[] = [];
    for (let after = 0, more = true; more; ) {
      const page = await a.history({ thread: 'general', after, limit: 500 });
      expect(JSON.stringify(page.events).length).toBeLessThan(32 * 1024 + 8 * 1024);
      seen.push(...page.events.filter((e) => e.type === 'message').map((e) => e.id));
      more = page.more;
      after = page.events.at(-1)?.seq ?? after;
    }
    expect(seen).toEqual(posted);
  });

  it('bounded reads - new messages stop at the byte bound and the cursor moves only past what was returned', async () => {
    const t = await hubs.open({ config: { chat: { limits: { maxReadBytes: 32 * 1024, writesPerMinute: 0 } } } });
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    await b.readNew({ thread: 'general' });
    for (let i = 0; i < 30; i++) await a.post({ thread: 'general', text: `${i} ${BIG}` });
    const texts: string[] = [];
    let reads = 0;
    for (let more = true; more; reads++) {
      const page = await b.readNew({ thread: 'general', limit: 1000 });
      texts.push(...page.events.map((e) => String(e.content).split(' ')[0]!));
      more = page.more;
    }
    expect(reads).toBeGreaterThan(3);
    expect(texts).toEqual(Array.from({ length: 30 }, (_, i) => String(i)));
  });

  it('bounded reads - an inbox read stops at the byte bound; the next reads deliver the rest, each item once, in order', async () => {
    const t = await hubs.open({ config: { chat: { limits: { maxReadBytes: 32 * 1024, writesPerMinute: 0 } } } });
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    await b.inbox();
    for (let i = 0; i < 30; i++) await a.post({ thread: 'general', text: `${i} ${BIG}` });
    await a.dm({ to: 'bob', text: `dm ${BIG}` });
    const seen: string[] = [];
    let reads = 0;
    for (let more = true; more; reads++) {
      const page = await b.inbox({ limit: 500 });
      expect(JSON.stringify(page.items).length).toBeLessThan(32 * 1024 + 8 * 1024);
      seen.push(...page.items.map((item) => String(item.event.content).split(' ')[0]!));
      more = page.more;
    }
    expect(reads).toBeGreaterThan(3);
    // The DM is high priority: it comes in the first read. Then the channel, oldest pages first (newest first within a read), each once.
    expect(seen[0]).toBe('dm');
    expect(seen).toHaveLength(31);
    expect(seen.slice(1).map(Number).sort((x, y) => x - y)).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });

  it('bounded reads - search results stop at the byte bound', async () => {
    const t = await hubs.open({ config: { chat: { limits: { maxReadBytes: 32 * 1024, writesPerMinute: 0 } } } });
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    for (let i = 0; i < 30; i++) await a.post({ thread: 'general', text: `needle ${i} ${BIG}` });
    await expect.poll(async () => (await a.search({ query: 'needle', limit: 1000 })).events.length, { timeout: 5000 }).toBeGreaterThan(1);
    const found = await a.search({ query: 'needle', limit: 1000 });
    expect(found.events.length).toBeLessThanOrEqual(8);
  });

  it('bounded reads - a single event larger than the bound is still returned (a page is never empty while events remain)', async () => {
    const t = await hubs.open({ config: { chat: { limits: { maxReadBytes: 4096, maxMessageChars: 20_000, writesPerMinute: 0 } } } });
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    await a.post({ thread: 'general', text: 'y'.repeat(10_000) });
    const page = await a.history({ thread: 'general', limit: 10 });
    expect(page.events.at(-1)?.content).toBe('y'.repeat(10_000));
  });
});

describe('read gate', () => {
  it('read gate - one participant runs at most its share of reads at once, in order; another participant is not queued behind it', async () => {
    const gate = new ReadGate(2);
    const running = new Set<string>();
    let most = 0;
    const order: string[] = [];
    const releases: Array<() => void> = [];
    const read = (who: string, n: number) =>
      gate.run(who, async () => {
        running.add(`${who}${n}`);
        most = Math.max(most, [...running].filter((r) => r.startsWith(who)).length);
        order.push(`${who}${n}`);
        await new Promise<void>((resolve) => releases.push(resolve));
        running.delete(`${who}${n}`);
        return n;
      });
    const hoarder = Array.from({ length: 6 }, (_, n) => read('h', n));
    await expect.poll(() => order.length).toBe(2);
    const other = read('o', 0);
    await expect.poll(() => order).toContain('o0');
    expect(order).toEqual(['h0', 'h1', 'o0']);
    while (order.length < 7 || releases.length > 0) {
      releases.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await Promise.all(hoarder)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(await other).toBe(0);
    expect(order.filter((o) => o.startsWith('h'))).toEqual(['h0', 'h1', 'h2', 'h3', 'h4', 'h5']);
    expect(most).toBe(2);
  });
});
