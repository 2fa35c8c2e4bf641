import { Hono } from 'hono';
import type { AuthVariables } from '../auth.js';
import { jsonBody } from '../../request/body.js';
import { whileRequestLasts } from '../request-lasts.js';

/**
 * What `parley hook` (an agent CLI's hook) calls, once per hook run: the
 * agent's presence from its activity, its new items as context text, and at a
 * stop whether to keep it going (see src/hub/agent-hook.ts). A stop of an
 * agent that stays available may wait; it ends when the hook goes away.
 */
type Env = { Variables: AuthVariables };

export function agentHookRoutes(): Hono<Env> {
  const app = new Hono<Env>();
  app.post('/agent/hook', async (c) => {
    const body = await jsonBody(c);
    return c.json(await whileRequestLasts(c, (signal) => c.get('actor').agentHook(body as never, signal)));
  });
  return app;
}
