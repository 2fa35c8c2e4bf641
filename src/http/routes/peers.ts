import { Hono, type MiddlewareHandler } from 'hono';
import { ParleyError, parseInput } from '../../errors/parley-error.js';
import type { Hub, PeerLinksView } from '../../hub/index.js';
import { jsonBody } from '../../request/body.js';
import { formatPublicKey, parsePublicKey } from '../../trust/node-id.js';
import { PeerAddBodySchema, PeerBlockBodySchema } from '../schemas.js';

/**
 * The hub's links to other hubs, for `parley peer list|add|remove|block|unblock` while the
 * hub runs (admin token). The links are the peer layer's; `parley serve`
 * attaches them to the hub, which hands them to these routes.
 */
export function peerRoutes(hub: Hub, adminOnly: MiddlewareHandler): Hono {
  const app = new Hono();
  app.get('/peers', adminOnly, (c) => c.json({ trust: hub.trust, addrs: hub.peerLinks()?.addrs() ?? [], peers: hub.peerLinks()?.list() ?? [] }));
  app.post('/peers', adminOnly, async (c) => {
    const { addr } = parseInput(PeerAddBodySchema, await jsonBody(c));
    const { link, added } = await linksOf(hub).add(addr);
    return c.json({ peer: link, added }, added ? 201 : 200);
  });
  // The key (ed25519:…) or one address, URL-encoded (an address holds slashes).
  app.delete('/peers/:peer', adminOnly, async (c) => {
    const peer = c.req.param('peer');
    const removed = await linksOf(hub).remove(peer);
    if (removed.length === 0) throw new ParleyError('NOT_FOUND', `No peer ${peer} is kept on this hub: "parley peer list" shows the ones that are.`, { field: 'peer' });
    return c.json({ removed });
  });
  // A partition made on purpose (parley peer block KEY --for 10m): held in memory, a restart lifts it.
  app.post('/peers/:peer/block', adminOnly, async (c) => {
    const key = keyOf(c.req.param('peer'));
    const { seconds } = parseInput(PeerBlockBodySchema, await jsonBody(c));
    const peer = await linksOf(hub).block(key, seconds * 1000);
    return c.json({ peer, until: new Date(Date.now() + seconds * 1000).toISOString() });
  });
  app.delete('/peers/:peer/block', adminOnly, (c) => c.json({ unblocked: linksOf(hub).unblock(keyOf(c.req.param('peer'))) }));
  return app;
}

/** A hub's key as a route names it, checked: `ed25519:` and 43 base64url characters. */
function keyOf(peer: string): string {
  return formatPublicKey(parsePublicKey(peer, 'peer'));
}

function linksOf(hub: Hub): PeerLinksView {
  const links = hub.peerLinks();
  if (!links) {
    throw new ParleyError('CONFLICT', 'This hub runs without peer links (it was opened as a library, not by "parley serve"): stop it, and add the peer with no hub running.');
  }
  return links;
}
