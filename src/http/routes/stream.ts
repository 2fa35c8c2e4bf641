import { Hono } from 'hono';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { ParleyError } from '../../errors/parley-error.js';
import type { AuthVariables } from '../auth.js';
import { boolQuery, intQuery } from '../body.js';
import { nodeBindings } from '../node-bindings.js';
import { SseWriter, sseErrorFrame, sseFrame } from '../sse.js';

/**
 * The live stream as Server-Sent Events. Each log event's SSE `id` is its
 * `seq`: a client that reconnects with `Last-Event-ID` (or `?since=`) first
 * gets everything it missed, then live events, each exactly once. Presence and
 * meeting traffic travel on the same stream, without ids (they are not stored).
 */
export const SSE_KEEPALIVE_MS = 15_000;

type Env = { Variables: AuthVariables };

export function streamRoutes(): Hono<Env> {
  const app = new Hono<Env>();
  app.get('/stream', (c) => {
    const header = c.req.header('last-event-id');
    if (header !== undefined && !/^\d+$/.test(header)) {
      throw new ParleyError('INVALID_INPUT', `Invalid Last-Event-ID: "${header}" is not a seq.`, { field: 'Last-Event-ID' });
    }
    const since = header !== undefined ? Number(header) : intQuery(c, 'since');
    const thread = c.req.query('thread');
    const inbox = boolQuery(c, 'inbox');
    const ephemeral = !boolQuery(c, 'events_only');
    const { outgoing } = nodeBindings(c);
    if (!outgoing) throw new ParleyError('INTERNAL', 'The live stream is served by the hub\'s HTTP server only.');
    // Subscribing validates the filter (unknown thread, another's DM) before anything is sent.
    const subscription = c.get('actor').live({
      ...(thread === undefined ? {} : { thread }),
      ...(since === undefined ? {} : { since }),
      inbox,
      ephemeral,
    });
    const sse = new SseWriter(outgoing);
    outgoing.once('close', () => subscription.close());
    sse.open();
    void (async () => {
      const keepAlive = setInterval(() => void sse.write(': keep-alive\n\n'), SSE_KEEPALIVE_MS);
      try {
        for await (const item of subscription) {
          if (sse.closed) break;
          await sse.write(sseFrame(item));
        }
      } catch (error) {
        await sse.write(sseErrorFrame(error));
      } finally {
        clearInterval(keepAlive);
        subscription.close();
        sse.end();
      }
    })();
    return RESPONSE_ALREADY_SENT;
  });
  return app;
}
