import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { ParleyError } from '../../errors/parley-error.js';
import type { LiveItem } from '../../hub/live-bus.js';
import type { AuthVariables } from '../auth.js';
import { boolQuery, intQuery } from '../body.js';

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
    const subscription = c.get('actor').live({
      ...(thread === undefined ? {} : { thread }),
      ...(since === undefined ? {} : { since }),
      inbox: boolQuery(c, 'inbox'),
      ephemeral: !boolQuery(c, 'events_only'),
    });
    return streamSSE(c, async (stream) => {
      const keepAlive = setInterval(() => void stream.write(': keep-alive\n\n'), SSE_KEEPALIVE_MS);
      stream.onAbort(() => subscription.close());
      c.req.raw.signal.addEventListener('abort', () => subscription.close(), { once: true });
      try {
        for await (const item of subscription) {
          await stream.writeSSE(toSse(item));
        }
      } catch (error) {
        await stream.writeSSE({ event: 'error', data: JSON.stringify({ error: (error as ParleyError).toJSON?.() ?? { message: String(error) } }) });
      } finally {
        clearInterval(keepAlive);
        subscription.close();
      }
    });
  });
  return app;
}

function toSse(item: LiveItem): { id?: string; event: string; data: string } {
  if (item.kind === 'event') return { id: String(item.event.seq), event: 'event', data: JSON.stringify(item.event) };
  if (item.kind === 'presence') return { event: 'presence', data: JSON.stringify(item.presence) };
  const { kind: _kind, session: _session, ...meeting } = item;
  return { event: 'meeting', data: JSON.stringify(meeting) };
}
