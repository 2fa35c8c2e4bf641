import { afterEach, describe, expect, it } from 'vitest';
import type { CoordinatorDoor } from '../../src/coordinator/door.js';
import { RestDoor } from '../../src/coordinator/rest-door.js';
import { createAdminCredential, readAdminToken } from '../../src/http/admin-token.js';
import { startHttpServer } from '../../src/http/server.js';
import { createMemoryLogger, createSilentLogger } from '../../src/util/logger.js';
import { openBench, type Bench } from '../helpers/coordinator.js';
import { openTestHub } from '../helpers/hub.js';

let bench: Bench | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await bench?.close();
  bench = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** The door, but the hub refuses to set anyone back to listening. */
function refusingListening(door: CoordinatorDoor): CoordinatorDoor {
  return {
    url: door.url,
    home: door.home,
    seat: async (...args) => {
      const seat = await door.seat(...args);
      const setPresence: typeof seat.api.setPresence = (input) =>
        input.state === 'listening' ? Promise.reject(new Error('presence refused')) : seat.api.setPresence(input);
      const api = new Proxy(seat.api, {
        get: (target, key) => {
          if (key === 'setPresence') return setPresence;
          const value: unknown = Reflect.get(target, key);
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
      return { ...seat, api };
    },
    watch: (session, wake) => door.watch(session, wake),
    close: () => door.close(),
  };
}

describe('what the coordinator could not undo at the end is logged, not dropped', () => {
  it('says when a participant could not be set back to listening after its run', async () => {
    const logger = createMemoryLogger();
    bench = await openBench({ 'coder-1': {} }, {}, { door: refusingListening, logger });
    const dm = await bench.human.dm({ to: 'coder-1', text: 'hello' });
    await bench.notice((n) => n.kind === 'finished' && n.text.includes(dm.id));
    expect(logger.records.filter((r) => r.msg === 'coordinator presence not set back to listening')).toMatchObject([
      { level: 'warn', handle: 'coder-1', error: 'Error: presence refused' },
    ]);
  });

  it('says when a token it acted with could not be revoked as it closed', async () => {
    const t = await openTestHub();
    cleanups.push(() => t.close());
    const server = await startHttpServer({ hub: t.hub, host: '127.0.0.1', port: 0, logger: createSilentLogger(), admin: createAdminCredential(t.home) });
    const logger = createMemoryLogger();
    const door = new RestDoor(server.url, t.home, async () => readAdminToken(t.home)!, 60_000, logger);
    await door.seat('coder-1', 'default', { kind: 'agent' });
    // The hub stops answering before the coordinator closes: the seat's token stays valid there.
    await server.close();
    await door.close();
    expect(logger.records.filter((r) => r.msg === 'coordinator token not revoked at close')).toMatchObject([{ level: 'warn', error: expect.stringContaining('No hub answers at') }]);
  });
});
