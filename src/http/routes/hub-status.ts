import { Hono, type MiddlewareHandler } from 'hono';
import { publicConfig } from '../../config/public-config.js';
import type { Hub } from '../../hub/index.js';
import { VERSION } from '../../version.js';

/**
 * The running hub itself, for `parley status` and `parley doctor` on the same
 * machine: its process, how long it has run, who is connected, and the
 * settings it runs with. Admin routes: the answers span every session, so
 * they take the home's admin token.
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
      peers: hub.peerLinks()?.list() ?? [],
    }),
  );
  // The settings in force (file, PARLEY_* variables and flags merged), secrets left out: what `parley doctor` shows while the hub runs.
  // This hub as another hub's roster takes it: `parley peer self`.
  app.get('/peers/self', adminOnly, (c) => c.json(hub.peerSelf()));
  app.get('/config', adminOnly, (c) => c.json({ pid: process.pid, config: publicConfig(hub.config) }));
  return app;
}
