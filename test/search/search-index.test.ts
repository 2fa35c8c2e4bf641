import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Actor } from '../../src/hub/actor.js';
import { openHub } from '../../src/hub/hub.js';
import { DEFAULT_INDEX_START_AFTER_DOCS, DEFAULT_INDEX_START_DELAY_MS } from '../../src/search/search-index.js';
import { createMemoryLogger, createSilentLogger } from '../../src/util/logger.js';
import { caught, tempHome } from '../helpers/hub.js';

describe('search index', () => {
  it('search - a post is found by the very next search (read-your-writes)', async () => {
    const { home, cleanup } = tempHome();
    const hub = await openHub({ home, logger: createSilentLogger() });
    try {
      const a = await hub.join({ handle: 'alice', session: 's' });
      for (let i = 0; i < 50; i++) {
        const posted = await a.post({ thread: 'general', text: `unique${i} marker` });
        const found = await a.search({ query: `unique${i}` });
        expect(found.events.map((e) => e.id)).toEqual([posted.id]);
      }
    } finally {
      await hub.close();
      cleanup();
    }
  });

  it('search - a hub that closes before it searches starts no indexer; the first search finds what was posted before it', async () => {
    const { home, cleanup } = tempHome();
    try {
      let hub = await openHub({ home, logger: createSilentLogger() });
      let a = await hub.join({ handle: 'alice', session: 's' });
      const early = await a.post({ thread: 'general', text: 'posted before any search' });
      await hub.close();
      // No worker ran: it would have made the index file.
      expect(fs.existsSync(path.join(home, 'search.db'))).toBe(false);
      hub = await openHub({ home, logger: createSilentLogger() });
      a = hub.actor('alice', 's');
      const later = await a.post({ thread: 'general', text: 'posted after the reopen, before any search' });
      expect((await a.search({ query: 'posted' })).events.map((e) => e.id).sort()).toEqual([early.id, later.id].sort());
      expect(fs.existsSync(path.join(home, 'search.db'))).toBe(true);
      await hub.close();
    } finally {
      cleanup();
    }
  });

  it('search - a hub that posts a lot starts its indexer at the 500th post, not seconds later', async () => {
    const { home, cleanup } = tempHome();
    const logger = createMemoryLogger();
    const hub = await openHub({ home, logger, config: { chat: { limits: { writeBurst: 1000, writesPerMinute: 100_000 } } } });
    try {
      const a = await hub.join({ handle: 'alice', session: 's' });
      const starts = () => logger.records.filter((r) => r.msg === 'search indexer starting');
      for (let i = 0; i < DEFAULT_INDEX_START_AFTER_DOCS - 1; i++) await a.post({ thread: 'general', text: `busy ${i}` });
      expect(starts()).toEqual([]);
      await a.post({ thread: 'general', text: 'the one that starts it' });
      expect(starts()).toEqual([expect.objectContaining({ by: 'posts' })]);
      expect((await a.search({ query: 'busy', limit: 50 })).events).toHaveLength(50);
    } finally {
      await hub.close();
      cleanup();
    }
  });

  it('search - a hub left open starts its indexer by itself, without a search', async () => {
    const { home, cleanup } = tempHome();
    const hub = await openHub({ home, logger: createSilentLogger() });
    try {
      await hub.join({ handle: 'alice', session: 's' });
      expect(fs.existsSync(path.join(home, 'search.db'))).toBe(false);
      await expect.poll(() => fs.existsSync(path.join(home, 'search.db')), { timeout: DEFAULT_INDEX_START_DELAY_MS + 10_000, interval: 100 }).toBe(true);
    } finally {
      await hub.close();
      cleanup();
    }
  });

  it('search - an indexer that starts after its home was removed does not make the home again', async () => {
    const { home, cleanup } = tempHome();
    const logger = createMemoryLogger();
    const hub = await openHub({ home, logger });
    try {
      fs.rmSync(home, { recursive: true, force: true });
      await hub.internals.ctx.search.started();
      expect(fs.existsSync(home)).toBe(false);
      expect(logger.records.some((r) => r.msg.startsWith('search indexer could not be started'))).toBe(true);
    } finally {
      await hub.close();
      cleanup();
    }
  });

  it('search - the index is rebuilt from the log when search.db is lost', async () => {
    const { home, cleanup } = tempHome();
    try {
      let hub = await openHub({ home, logger: createSilentLogger() });
      const a = await hub.join({ handle: 'alice', session: 's' });
      const ids = [];
      for (let i = 0; i < 30; i++) ids.push((await a.post({ thread: 'general', text: `rebuild item ${i}` })).id);
      await hub.close();
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(path.join(home, `search.db${suffix}`), { force: true });
      hub = await openHub({ home, logger: createSilentLogger() });
      const found = await hub.actor('alice', 's').search({ query: 'rebuild', limit: 100 });
      expect(found.events.map((e) => e.id).sort()).toEqual([...ids].sort());
      await hub.close();
    } finally {
      cleanup();
    }
  });

  it('search - requests are found by intent, side channels by title, and others’ DMs never', async () => {
    const { home, cleanup } = tempHome();
    const hub = await openHub({ home, logger: createSilentLogger() });
    try {
      const a = await hub.join({ handle: 'alice', session: 's' });
      const b = await hub.join({ handle: 'bob', session: 's' });
      const c = await hub.join({ handle: 'carol', session: 's' });
      const req = await a.request({ to: 'bob', intent: 'deploy-staging', thread: 'general' });
      const side = await a.openSide({ parent: 'general', title: 'flaky websocket tests' });
      await a.dm({ to: 'bob', text: 'confidential roadmap' });
      expect((await c.search({ query: 'deploy' })).events.map((e) => e.id)).toEqual([req.id]);
      expect((await c.search({ query: 'websocket' })).events.map((e) => e.id)).toEqual([side.link_event]);
      expect((await c.search({ query: 'confidential' })).events).toEqual([]);
      expect((await b.search({ query: 'confidential' })).events).toHaveLength(1);
    } finally {
      await hub.close();
      cleanup();
    }
  });

  it('search - an unreadable search.db is thrown away and rebuilt from the log', async () => {
    const { home, cleanup } = tempHome();
    try {
      let hub = await openHub({ home, logger: createSilentLogger() });
      const a = await hub.join({ handle: 'alice', session: 's' });
      const posted = await a.post({ thread: 'general', text: 'survives corruption' });
      await hub.close();
      for (const suffix of ['-wal', '-shm']) fs.rmSync(path.join(home, `search.db${suffix}`), { force: true });
      fs.writeFileSync(path.join(home, 'search.db'), 'this is not a database'.repeat(100));
      hub = await openHub({ home, logger: createSilentLogger() });
      expect((await hub.actor('alice', 's').search({ query: 'corruption' })).events.map((e) => e.id)).toEqual([posted.id]);
      await hub.close();
    } finally {
      cleanup();
    }
  });

  it('search - if the indexer dies, search says so, posting goes on, and the indexer comes back by itself with what was posted meanwhile', async () => {
    const { home, cleanup } = tempHome();
    const hub = await openHub({ home, logger: createSilentLogger() });
    try {
      const a = await hub.join({ handle: 'alice', session: 's' });
      await hub.internals.ctx.search.simulateCrash();
      const posted = await a.post({ thread: 'general', text: 'still posting' });
      const refused = await caught(() => a.search({ query: 'posting' }));
      expect(refused.code).toBe('INTERNAL');
      expect(refused.message).toContain('restarts the indexer by itself');
      expect(refused.message).not.toContain('bug');
      // No hub restart: the indexer is restarted and catches up from the log.
      await expect.poll(() => foundIds(a, 'posting'), { timeout: 20_000, interval: 100 }).toEqual([posted.id]);
    } finally {
      await hub.close();
      cleanup();
    }
  });

  it('search - after a write to the index fails on a full disk, search says so plainly and retries; once space is freed it comes back with everything posted meanwhile, without a restart', async () => {
    const { home, cleanup } = tempHome();
    const logger = createMemoryLogger();
    const hub = await openHub({ home, logger });
    try {
      const a = await hub.join({ handle: 'alice', session: 's' });
      const before = await a.post({ thread: 'general', text: 'written before the disk filled' });
      expect(await foundIds(a, 'before')).toEqual([before.id]);
      const index = hub.internals.ctx.search;
      index.simulateDiskFull(true);
      // Enough distinct words that the index must grow.
      const during: string[] = [];
      for (let i = 0; i < 40; i++) {
        const words = Array.from({ length: 300 }, (_, j) => `w${i}x${j}`).join(' ');
        during.push((await a.post({ thread: 'general', text: `outage${i} ${words}` })).id);
      }
      const refused = await caught(() => a.search({ query: 'outage1' }));
      expect(refused.code).toBe('STORAGE_UNAVAILABLE');
      expect(refused.message).toContain('the disk is full (SQLITE_FULL)');
      expect(refused.message).toContain(path.join(home, 'search.db'));
      expect(refused.message).toContain('comes back by itself');
      expect(refused.message).not.toContain('bug');
      // A restart while the disk is still full fails the same way, and is tried again later.
      const stops = () => logger.records.filter((r) => r.msg.startsWith('search indexer stopped')).length;
      await expect.poll(stops, { timeout: 20_000, interval: 50 }).toBeGreaterThanOrEqual(2);
      expect((await caught(() => a.search({ query: 'outage1' }))).code).toBe('STORAGE_UNAVAILABLE');
      index.simulateDiskFull(false);
      await expect.poll(() => foundIds(a, 'outage39'), { timeout: 30_000, interval: 100 }).toEqual([during[39]]);
      for (let i = 0; i < 40; i++) expect(await foundIds(a, `outage${i}`)).toEqual([during[i]]);
      expect(await foundIds(a, 'before')).toEqual([before.id]);
      // And live again: the next post is found by the very next search.
      const after = await a.post({ thread: 'general', text: 'written after space was freed' });
      expect(await foundIds(a, 'freed')).toEqual([after.id]);
    } finally {
      await hub.close();
      cleanup();
    }
  }, 60_000);
});

/** The ids a search finds, or [] while search is unavailable. */
async function foundIds(actor: Actor, query: string): Promise<string[]> {
  try {
    return (await actor.search({ query })).events.map((e) => e.id);
  } catch {
    return [];
  }
}

/** The nice value of each thread of this process (Linux: field 19 of /proc/self/task/TID/stat, after the command's name). */
function threadNiceness(): number[] {
  return fs.readdirSync('/proc/self/task').flatMap((tid) => {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      return [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
    } catch {
      return []; // the thread ended meanwhile
    }
  });
}

describe('search index priority', () => {
  it('search - the indexer thread runs at a lower priority than the hub, so that storing and delivering go first when every core is busy', async () => {
    expect(process.platform).toBe('linux');
    const base = threadNiceness()[0]!;
    const lowered = (): number => threadNiceness().filter((nice) => nice >= Math.min(19, base + 10)).length;
    const before = lowered();
    const { home, cleanup } = tempHome();
    const hub = await openHub({ home, logger: createSilentLogger() });
    try {
      const a = await hub.join({ handle: 'alice', session: 's' });
      const posted = await a.post({ thread: 'general', text: 'indexed in the background' });
      // The first search starts the indexer and waits for it.
      expect((await a.search({ query: 'background' })).events.map((e) => e.id)).toEqual([posted.id]);
      expect(lowered()).toBe(before + 1);
      expect(threadNiceness()[0]).toBe(base);
    } finally {
      await hub.close();
      cleanup();
    }
  });
});
