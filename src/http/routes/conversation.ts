import { Hono } from 'hono';
import type { AuthVariables } from '../auth.js';
import { whileRequestLasts } from '../request-lasts.js';
import { parseInput } from '../../errors/parley-error.js';
import { boolQuery, intQuery, jsonBody } from '../../request/body.js';
import { MarkReadBodySchema, SubscriptionBodySchema } from '../schemas.js';

/**
 * The conversation API for the authenticated participant: threads, posting,
 * reading, search, the inbox and subscriptions. Each route is a thin adapter
 * over the library (`Actor`), whose schemas validate every input.
 */
type Env = { Variables: AuthVariables };

export function conversationRoutes(): Hono<Env> {
  const app = new Hono<Env>();

  // Threads.
  // `head` is read before the list is built: streaming with since=head then covers everything after the list.
  app.get('/threads', async (c) => {
    const actor = c.get('actor');
    const head = actor.head;
    return c.json({ threads: await actor.threads(), head });
  });
  app.post('/threads', async (c) => c.json(await c.get('actor').createChannel((await jsonBody(c)) as never), 201));
  app.get('/threads/:thread', async (c) => c.json(await c.get('actor').threadDetail(c.req.param('thread'))));
  app.post('/threads/:thread/read', async (c) => {
    const body = parseInput(MarkReadBodySchema, await jsonBody(c));
    return c.json(await c.get('actor').markRead(c.req.param('thread'), body.up_to));
  });
  app.post('/threads/:thread/rename', async (c) =>
    c.json(await c.get('actor').renameThread({ ...(await jsonBody(c)), thread: c.req.param('thread') } as never)),
  );
  app.post('/threads/:thread/side', async (c) =>
    c.json(await c.get('actor').openSide({ ...(await jsonBody(c)), parent: c.req.param('thread') } as never), 201),
  );
  app.post('/threads/:thread/close', async (c) =>
    c.json(await c.get('actor').closeSide({ ...(await jsonBody(c)), thread: c.req.param('thread') } as never)),
  );
  app.put('/threads/:thread/subscription', async (c) => {
    const { state } = parseInput(SubscriptionBodySchema, await jsonBody(c));
    const actor = c.get('actor');
    const thread = c.req.param('thread');
    if (state === 'muted') return c.json(await actor.mute(thread));
    if (state === 'unsubscribed') return c.json(await actor.unsubscribe(thread));
    return c.json(await actor.subscribe(thread));
  });

  // Posting and reading.
  app.post('/threads/:thread/messages', async (c) =>
    c.json(await c.get('actor').post({ ...(await jsonBody(c)), thread: c.req.param('thread') } as never), 201),
  );
  app.post('/dm', async (c) => c.json(await c.get('actor').dm((await jsonBody(c)) as never), 201));
  // A message its author signed itself (see src/hub/ingest.ts): stored as signed, or refused.
  app.post('/envelopes', async (c) => c.json(await c.get('actor').ingest((await jsonBody(c)) as never), 201));
  app.get('/threads/:thread/new', async (c) => {
    const limit = intQuery(c, 'limit');
    return c.json(await c.get('actor').readNew({ thread: c.req.param('thread'), ...(limit === undefined ? {} : { limit }) }));
  });
  app.get('/threads/:thread/history', async (c) => {
    const [limit, before, after] = [intQuery(c, 'limit'), intQuery(c, 'before'), intQuery(c, 'after')];
    return c.json(
      await c.get('actor').history({
        thread: c.req.param('thread'),
        ...(limit === undefined ? {} : { limit }),
        ...(before === undefined ? {} : { before }),
        ...(after === undefined ? {} : { after }),
      }),
    );
  });
  app.get('/search', async (c) => {
    const limit = intQuery(c, 'limit');
    const thread = c.req.query('thread');
    return c.json(
      await c.get('actor').search({
        query: c.req.query('q') ?? '',
        ...(thread === undefined ? {} : { thread }),
        ...(limit === undefined ? {} : { limit }),
      }),
    );
  });

  app.get('/threads/:thread/export', async (c) => {
    const format = c.req.query('format') ?? 'markdown';
    const exported = await c.get('actor').export({ thread: c.req.param('thread'), format: format as never });
    // Streamed a page at a time, as fast as the client takes it: memory stays flat for any thread.
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          const { value, done } = await exported.chunks.next();
          if (done) controller.close();
          else controller.enqueue(typeof value === 'string' ? encoder.encode(value) : value);
        },
        async cancel() {
          await exported.chunks.return();
        },
      },
      { highWaterMark: 0 },
    );
    return c.body(body, 200, { 'content-type': exported.contentType });
  });

  // The inbox.
  app.get('/inbox', async (c) => {
    const limit = intQuery(c, 'limit');
    const input = limit === undefined ? {} : { limit };
    const actor = c.get('actor');
    return c.json(boolQuery(c, 'peek') ? await actor.peek(input) : await actor.inbox(input));
  });
  app.post('/inbox/ack', async (c) => c.json(await c.get('actor').ack((await jsonBody(c)) as never)));
  // What a client hook or the LLM middleware puts into the agent's context: POST, since it consumes (each item is returned once) unless it peeks.
  app.post('/inbox/inject', async (c) => c.json(await c.get('actor').inject((await jsonBody(c)) as never)));
  app.get('/inbox/wait', async (c) => {
    const [timeout, limit, peek] = [intQuery(c, 'timeout_ms'), intQuery(c, 'limit'), boolQuery(c, 'peek')];
    const input = { ...(timeout === undefined ? {} : { timeout_ms: timeout }), ...(limit === undefined ? {} : { limit }), ...(peek ? { peek } : {}) };
    return c.json(await whileRequestLasts(c, (signal) => c.get('actor').wait(input, signal)));
  });
  app.get('/deliveries', async (c) => {
    const [limit, olderThan] = [intQuery(c, 'limit'), intQuery(c, 'older_than_ms')];
    return c.json({ deliveries: await c.get('actor').deliveries((c.req.query('state') ?? 'delivered') as never, limit ?? 100, olderThan) });
  });
  app.get('/deliveries/sent', async (c) => {
    const [limit, olderThan, state] = [intQuery(c, 'limit'), intQuery(c, 'older_than_ms'), c.req.query('state')];
    const input = { ...(state === undefined ? {} : { state }), ...(limit === undefined ? {} : { limit }), ...(olderThan === undefined ? {} : { older_than_ms: olderThan }) };
    return c.json({ deliveries: await c.get('actor').sentDeliveries(input as never) });
  });

  return app;
}
