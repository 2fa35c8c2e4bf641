import { Hono } from 'hono';
import type { AuthVariables } from '../auth.js';
import { intQuery, jsonBody } from '../body.js';

/** Posting and reading threads, and the inbox, for the authenticated participant. */
export function conversationRoutes(): Hono<{ Variables: AuthVariables }> {
  const app = new Hono<{ Variables: AuthVariables }>();

  app.get('/whoami', (c) => {
    const actor = c.get('actor');
    return c.json({ participant: actor.participant, session: actor.session });
  });

  app.post('/threads/:thread/messages', async (c) => {
    const body = await jsonBody(c);
    const result = await c.get('actor').post({ ...body, thread: c.req.param('thread') } as never);
    return c.json(result, 201);
  });

  app.get('/threads/:thread/new', async (c) => {
    const limit = intQuery(c, 'limit');
    const result = await c.get('actor').readNew({ thread: c.req.param('thread'), ...(limit === undefined ? {} : { limit }) });
    return c.json(result);
  });

  app.get('/inbox', async (c) => {
    const limit = intQuery(c, 'limit');
    const input = limit === undefined ? {} : { limit };
    const actor = c.get('actor');
    return c.json(c.req.query('peek') === 'true' ? await actor.peek(input) : await actor.inbox(input));
  });

  return app;
}
