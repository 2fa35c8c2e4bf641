import { Hono, type MiddlewareHandler } from 'hono';
import { parseInput } from '../../errors/parley-error.js';
import { type Hub, DEFAULT_SESSION } from '../../hub/index.js';
import { HandleSchema } from '../../schema/names.js';
import { JoinInputSchema } from '../../schema/participant.js';
import { jsonBody } from '../../request/body.js';
import { RevokeTokenBodySchema, RotateTokenBodySchema, RunTokenBodySchema } from '../schemas.js';

/**
 * Registering participants and managing their tokens: admin routes, for the
 * `parley` CLI of the hub's own OS user (see admin-token.ts).
 */
export function participantRoutes(hub: Hub, adminOnly: MiddlewareHandler): Hono {
  const app = new Hono();

  /**
   * Join: registers (idempotently) and returns a new bearer token for the
   * participant in the session, with its access and how access is decided
   * (as whoami): `access` null under a roster that leaves its key out, whose
   * token then works only once an admin adds the key.
   */
  app.post('/', adminOnly, async (c) => {
    const input = parseInput(JoinInputSchema, await jsonBody(c));
    const actor = await hub.join(input);
    const token = await hub.issueToken(actor.participant.handle, actor.session.name);
    return c.json({ participant: actor.participant, session: actor.session, token, access: actor.access ?? null, trust: hub.trust }, 201);
  });

  /** Revokes one token, leaving the participant's others working (a coordinator's, when it stops). */
  app.post('/tokens/revoke', adminOnly, async (c) => {
    const { token } = parseInput(RevokeTokenBodySchema, await jsonBody(c));
    return c.json({ revoked: await hub.revokeToken(token) });
  });

  /** A token for one coordinated adapter run (`parley coordinate`), told apart so that no hub start leaves one valid. */
  app.post('/:handle/tokens/run', adminOnly, async (c) => {
    const handle = parseInput(HandleSchema, c.req.param('handle'), 'handle');
    const { session } = parseInput(RunTokenBodySchema, await jsonBody(c));
    const token = await hub.issueToken(handle, session ?? DEFAULT_SESSION, 'coordinator');
    return c.json({ handle, session: session ?? DEFAULT_SESSION, token }, 201);
  });

  app.post('/:handle/tokens/rotate', adminOnly, async (c) => {
    const handle = parseInput(HandleSchema, c.req.param('handle'), 'handle');
    const { session } = parseInput(RotateTokenBodySchema, await jsonBody(c));
    const token = await hub.rotateToken(handle, session ?? DEFAULT_SESSION);
    return c.json({ handle, session: session ?? DEFAULT_SESSION, token });
  });

  return app;
}
