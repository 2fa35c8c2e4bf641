import { Hono } from 'hono';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { ParleyError } from '../../errors/parley-error.js';
import type { AuthVariables } from '../auth.js';
import { boolQuery, intQuery } from '../../request/body.js';
import { nodeBindings } from '../../request/node-bindings.js';
import { SseWriter, sseErrorFrame, sseFrame } from '../sse.js';
import { inBackground } from '../../util/background.js';
import type { Logger } from '../../util/logger.js';

/**
 * The live stream as Server-Sent Events. Each log event's SSE `id` is its
 * `seq`: a client that reconnects with `Last-Event-ID` (or `?since=`) first
 * gets everything it missed, then live events, each exactly once. Presence and
 * meeting traffic travel on the same stream, without ids (they are not stored).
 */
type Env = { Variables: AuthVariables };

export interface StreamSettings {
  keepAliveMs: number;
  stallTimeoutMs: number;
  logger: Logger;
}

export function streamRoutes(settings: StreamSettings): Hono<Env> {
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
    const actor = c.get('actor');
    const sse = new SseWriter(outgoing, {
      stallTimeoutMs: settings.stallTimeoutMs,
      onDrop: (reason) => settings.logger.warn('live stream client dropped', { participant: actor.participant.handle, reason }),
    });
    outgoing.once('close', () => subscription.close());
    // A revoked token (rotation, sign-out) ends the stream it opened at once.
    const revoked = c.get('credential')?.revoked;
    const onRevoked = (): void => {
      // The last frame first: closing the subscription ends the response.
      sse.close(sseErrorFrame(new ParleyError('UNAUTHORIZED', 'The token this stream was opened with has been revoked; sign in or get a new token.')));
      subscription.close();
    };
    revoked?.addEventListener('abort', onRevoked, { once: true });
    sse.open();
    const keepAlive = setInterval(() => sse.keepAlive(), settings.keepAliveMs);
    const finished = (): void => {
      clearInterval(keepAlive);
      revoked?.removeEventListener('abort', onRevoked);
      sse.end();
    };
    // Push mode: a published event is written to every subscriber's socket in the same turn, with no promise per subscriber.
    const resume = (): void => subscription.resume();
    subscription.pipe({
      item: (item) => sse.offer(sseFrame(item), resume),
      end: (error) => {
        if (error === undefined) finished();
        else inBackground(sse.write(sseErrorFrame(error)).finally(finished), settings.logger, 'ending a live stream');
      },
    });
    if (revoked?.aborted) onRevoked();
    return RESPONSE_ALREADY_SENT;
  });

  /**
   * Keeps the caller present while the response is open: what `parley mcp`
   * (stdio) holds for as long as its MCP session lasts. Only keep-alive
   * comments are sent; the stream ends when the client goes, its token is
   * revoked, or the hub shuts down.
   */
  app.get('/connection', (c) => {
    const { outgoing } = nodeBindings(c);
    if (!outgoing) throw new ParleyError('INTERNAL', 'The connection is served by the hub\'s HTTP server only.');
    const actor = c.get('actor');
    const connection = actor.connect();
    const sse = new SseWriter(outgoing, {
      stallTimeoutMs: settings.stallTimeoutMs,
      onDrop: (reason) => settings.logger.warn('connection client dropped', { participant: actor.participant.handle, reason }),
    });
    const revoked = c.get('credential')?.revoked;
    const onRevoked = (): void => connection.close();
    revoked?.addEventListener('abort', onRevoked, { once: true });
    outgoing.once('close', () => connection.close());
    const keepAlive = setInterval(() => sse.keepAlive(), settings.keepAliveMs);
    const ended = connection.ended.then(() => {
      clearInterval(keepAlive);
      revoked?.removeEventListener('abort', onRevoked);
      sse.end();
    });
    inBackground(ended, settings.logger, 'ending a connection stream');
    sse.open();
    if (revoked?.aborted) onRevoked();
    return RESPONSE_ALREADY_SENT;
  });
  return app;
}
