import { Hono } from 'hono';
import type { AuthVariables } from '../auth.js';
import { jsonBody } from '../../request/body.js';
import { parseInput } from '../../errors/parley-error.js';
import { REGISTERED_PROFILE_FIELDS, SelfProfilePatchSchema } from '../../schema/participant.js';
import type { Config } from '../../config/schema.js';
import { chatOpenFor, wakeOnFor } from '../../hub/index.js';

/** Who the caller is, who else is here, which sessions exist, and the caller's own profile. */
type Env = { Variables: AuthVariables };

export function directoryRoutes(config: Config): Hono<Env> {
  const app = new Hono<Env>();
  // `hub` tells a client (the page) what this hub allows the caller: whether it has chat (the toggle, and its kind not excluded),
  // where messages are cut (maxMessageChars) and refused (maxInputChars). `head` is the newest committed seq: without chat
  // (no thread list to take it from) a client streams its inbox with since=head to miss nothing read after this answer.
  const limits = { maxMessageChars: config.chat.limits.maxMessageChars, maxInputChars: config.chat.limits.maxInputChars };
  app.get('/whoami', async (c) => {
    const actor = c.get('actor');
    const head = actor.head;
    const participant = actor.participant;
    const { access, trust } = await actor.whoami();
    return c.json({ participant, session: actor.session, wakeOn: wakeOnFor(config, participant.profile), access, trust, hub: { chat: chatOpenFor(config, participant.profile), ...limits }, head });
  });
  app.get('/participants', async (c) => c.json({ participants: await c.get('actor').participants() }));
  app.get('/sessions', async (c) => c.json({ sessions: await c.get('actor').sessions() }));
  app.patch('/profile', async (c) => {
    const body = await jsonBody(c);
    // Kind and roles go to the library, which says how they are set; any other bad field is named as the body names it.
    const registered = typeof body === 'object' && body !== null && REGISTERED_PROFILE_FIELDS.some((key) => key in body);
    const patch = registered ? (body as never) : parseInput(SelfProfilePatchSchema, body);
    return c.json({ participant: await c.get('actor').updateProfile(patch) });
  });
  return app;
}
