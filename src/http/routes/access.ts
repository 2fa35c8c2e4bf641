import { Hono, type MiddlewareHandler } from 'hono';
import { parseInput } from '../../errors/parley-error.js';
import type { Hub } from '../../hub/index.js';
import { HandleSchema } from '../../schema/names.js';
import type { AdminCredential } from '../../home/admin-token.js';
import type { AuthVariables, Authenticator } from '../auth.js';
import { jsonBody } from '../../request/body.js';
import { SetAccessBodySchema } from '../schemas.js';

/**
 * Local mode: changes a participant's permission role (`access`), for an
 * admin participant or the home's admin token (the CLI of the hub's own OS
 * user). It takes effect on the participant's next call, and its MCP tool
 * lists change at once. With a roster, access comes from the roster only.
 */
export function accessRoutes(hub: Hub, auth: Authenticator, admin: AdminCredential | undefined): Hono<{ Variables: AuthVariables & { adminToken?: boolean } }> {
  const app = new Hono<{ Variables: AuthVariables & { adminToken?: boolean } }>();
  const adminTokenOrParticipant = adminTokenOrParticipantOf(auth, admin);
  app.put('/participants/:handle/access', adminTokenOrParticipant, async (c) => {
    const handle = parseInput(HandleSchema, c.req.param('handle'), 'handle');
    const { access } = parseInput(SetAccessBodySchema, await jsonBody(c));
    const participant = c.get('adminToken') ? await hub.setAccess(handle, access) : await c.get('actor').setAccess(handle, access);
    return c.json({ participant, access });
  });
  return app;
}

/** Lets in the home's admin token (setting `adminToken`), else authenticates a participant as every route does. */
export function adminTokenOrParticipantOf(auth: Authenticator, admin: AdminCredential | undefined): MiddlewareHandler<{ Variables: AuthVariables & { adminToken?: boolean } }> {
  const participant = auth.middleware();
  return async (c, next) => {
    const bearer = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '')?.[1];
    if (bearer && admin?.verify(bearer)) {
      c.set('adminToken', true);
      await next();
      return;
    }
    await participant(c, next);
  };
}
