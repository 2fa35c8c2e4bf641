import { Hono } from 'hono';
import type { AuthVariables } from '../auth.js';
import { parseInput } from '../../errors/parley-error.js';
import { intQuery, jsonBody } from '../../request/body.js';
import { MeetingSayBodySchema } from '../schemas.js';

/** Requests and responses, steering controls, presence and meetings. */
type Env = { Variables: AuthVariables };

export function coordinationRoutes(): Hono<Env> {
  const app = new Hono<Env>();

  app.post('/requests', async (c) => c.json(await c.get('actor').request((await jsonBody(c)) as never), 201));
  app.post('/requests/:id/responses', async (c) =>
    c.json(await c.get('actor').respond({ ...(await jsonBody(c)), request_id: c.req.param('id') } as never), 201),
  );
  app.get('/requests/open', async (c) => c.json(await c.get('actor').openRequests()));

  app.post('/threads/:thread/controls', async (c) => c.json(await c.get('actor').control(c.req.param('thread'), (await jsonBody(c)) as never), 201));

  app.put('/presence', async (c) => c.json(await c.get('actor').setPresence((await jsonBody(c)) as never)));
  app.get('/presence', async (c) => c.json({ presence: await c.get('actor').who() }));

  app.get('/meetings', async (c) => c.json({ meetings: await c.get('actor').meetings() }));
  app.post('/meetings/:name/join', async (c) => c.json(await c.get('actor').meetingJoin(c.req.param('name'))));
  app.post('/meetings/:name/leave', async (c) => c.json(await c.get('actor').meetingLeave(c.req.param('name'))));
  app.post('/meetings/:name/say', async (c) => {
    const { text } = parseInput(MeetingSayBodySchema, await jsonBody(c));
    return c.json(await c.get('actor').meetingSay(c.req.param('name'), text), 201);
  });
  app.get('/meetings/:name/hear', async (c) => {
    const [lastHeard, limit] = [intQuery(c, 'last_heard'), intQuery(c, 'limit')];
    return c.json(
      await c.get('actor').meetingHear({
        meeting: c.req.param('name'),
        ...(lastHeard === undefined ? {} : { last_heard: lastHeard }),
        ...(limit === undefined ? {} : { limit }),
      }),
    );
  });
  app.get('/meetings/:name/who', async (c) => c.json(await c.get('actor').meetingWho(c.req.param('name'))));
  app.get('/meetings/:name/ring', async (c) => c.json(await c.get('actor').meetingRing(c.req.param('name'))));
  app.get('/meetings/:name/status', async (c) => c.json(await c.get('actor').meetingStatus(c.req.param('name'), intQuery(c, 'last_heard'))));

  return app;
}
