import { Hono, type MiddlewareHandler } from 'hono';
import type { Hub } from '../../hub/hub.js';
import { VERSION } from '../../version.js';

/**
 * The running hub itself, for `parley status` on the same machine: its
 * process, how long it has run and who is connected. An admin route: the
 * answer spans every session, so it takes the home's admin token.
 */
export function hubStatusRoutes(hub: Hub, adminOnly: MiddlewareHandler): Hono {
  const app = new Hono();
  app.get('/', adminOnly, (c) =>
    c.json({
      version: VERSION,
      pid: process.pid,
      home: hub.home,
      startedAt: new Date(hub.openedAt).toISOString(),
      uptimeSeconds: Math.max(0, Math.floor((Date.now() - hub.openedAt) / 1000)),
      connected: hub.connected(),
      trust: hub.trust,
      envelopes: hub.stats().envelopes,
    }),
  );
  return app;
}
