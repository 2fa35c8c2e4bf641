import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from 'hono';

/**
 * The Node request and response behind a Hono context when the hub's Node
 * server serves it (`@hono/node-server` bindings); undefined for requests
 * made in process (app.request in tests). Reading bodies, streaming and the
 * client's address go through these directly: the fetch Request the adapter
 * would otherwise build costs more than the work itself.
 */
export function nodeBindings(c: Context): { incoming?: IncomingMessage; outgoing?: ServerResponse } {
  return (c.env as { incoming?: IncomingMessage; outgoing?: ServerResponse } | undefined) ?? {};
}
