import { Hono } from 'hono';
import type { AuthVariables } from '../auth.js';
import { jsonBody } from '../body.js';
import type { Config } from '../../config/schema.js';

/** Who the caller is, who else is here, which sessions exist, and the caller's own profile. */
type Env = { Variables: AuthVariables };

export function directoryRoutes(config: Config): Hono<Env> {
  const app = new Hono<Env>();
  // `hub` tells a client (the page) what this hub allows: whether chat is on, where messages are cut (maxMessageChars) and refused (maxInputChars).
  const hub = { chat: config.chat.enabled, maxMessageChars: config.chat.limits.maxMessageChars, maxInputChars: config.chat.limits.maxInputChars };
  app.get('/whoami', (c) => {
    const actor = c.get('actor');
    return c.json({ participant: actor.participant, session: actor.session, hub });
  });
  app.get('/participants', async (c) => c.json({ participants: await c.get('actor').participants() }));
  app.get('/sessions', async (c) => c.json({ sessions: await c.get('actor').sessions() }));
  // The library validates the patch, and says why kind and roles cannot be changed here.
  app.patch('/profile', async (c) => c.json({ participant: await c.get('actor').updateProfile((await jsonBody(c)) as never) }));
  return app;
}
