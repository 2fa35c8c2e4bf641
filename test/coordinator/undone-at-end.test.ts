import { afterEach, describe, expect, it } from 'vitest';
import type { HubAccess } from '../../src/coordinator/hub-access.js';
import { RestHubAccess } from '../../src/coordinator/rest-hub-access.js';
import { createAdminCredential, readAdminToken } from '../../src/home/admin-token.js';
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

/** The hub access, but the hub refuses to set anyone back to listening. */
function refusingListening(hubAccess: HubAccess): HubAccess {
  return {
    url: hubAccess.url,
    home: hubAccess.home,
    join: async (...args) => {
      const caller = await hubAccess.join(...args);
      const setPresence: typeof caller.api.setPresence = (input) =>
        input.state === 'listening' ? Promise.reject(new Error('presence refused')) : caller.api.setPresence(input);
      const api = new Proxy(caller.api, {
        get: (target, key) => {
          if (key === 'setPresence') return setPresence;
          const value: unknown = Reflect.get(target, key);
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
      return { ...caller, api };
    },
    watch: (session, wake) => hubAccess.watch(session, wake),
    close: () => hubAccess.close(),
  };
}

describe('what the coordinator could not undo at the end is logged, not dropped', () => {
  it('says when a participant could not be set back to listening after its run', async () => {
    const logger = createMemoryLogger();
    bench = await openBench({ 'coder-1': {} }, {}, { hubAccess: refusingListening, logger });
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
    const hubAccess = new RestHubAccess(server.url, t.home, async () => readAdminToken(t.home)!, 60_000, logger);
    await hubAccess.join('coder-1', 'default', { kind: 'agent' });
    // The hub stops answering before the coordinator closes: the caller's token stays valid there.
    await server.close();
    await hubAccess.close();
    expect(logger.records.filter((r) => r.msg === 'coordinator token not revoked at close')).toMatchObject([{ level: 'warn', error: expect.stringContaining('No hub answers at') }]);
  });
});
