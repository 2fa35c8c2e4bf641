import { Hono } from 'hono';
import type { AuthVariables } from '../auth.js';
import type { Hub } from '../../hub/index.js';
import type { LinkedHubView, PeerLinkInfo } from '../../schema/peer-link.js';

type Env = { Variables: AuthVariables };

/**
 * The hubs this one links to, as any participant may see them (the page's
 * "Linked hubs"): empty when the hub runs no peer links. The operator's view,
 * with addresses, is GET /api/v1/hub/peers (admin token).
 */
export function linkedHubRoutes(hub: Hub): Hono<Env> {
  const app = new Hono<Env>();
  app.get('/linked-hubs', (c) => c.json({ hubs: (hub.peerLinks()?.list() ?? []).map(linkedHubView) }));
  return app;
}

function linkedHubView(peer: PeerLinkInfo): LinkedHubView {
  return { key: peer.key, id: peer.id, name: peer.name, state: peer.state, lastSeen: peer.lastSeen, queued: peer.queued, lagSeconds: peer.lagSeconds, drops: peer.drops, gaps: peer.gaps };
}
