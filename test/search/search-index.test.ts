import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openHub } from '../../src/hub/hub.js';
import { createSilentLogger } from '../../src/util/logger.js';
import { tempHome } from '../helpers/hub.js';

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

  it('search - if the indexer dies, search says so, posting goes on, and close does not hang', async () => {
    const { home, cleanup } = tempHome();
    const hub = await openHub({ home, logger: createSilentLogger() });
    try {
      const a = await hub.join({ handle: 'alice', session: 's' });
      await hub.internals.ctx.search.simulateCrash();
      await expect(a.post({ thread: 'general', text: 'still posting' })).resolves.toMatchObject({ seq: expect.any(Number) });
      expect(await a.search({ query: 'posting' }).catch((e: unknown) => (e as { code: string }).code)).toBe('INTERNAL');
    } finally {
      await hub.close();
      cleanup();
    }
  });
});
