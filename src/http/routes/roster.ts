import { Hono, type MiddlewareHandler } from 'hono';
import { parseInput } from '../../errors/parley-error.js';
import type { Hub } from '../../hub/index.js';
import type { AdminCredential } from '../../home/admin-token.js';
import type { AuthVariables, Authenticator } from '../auth.js';
import { jsonBody } from '../../request/body.js';
import { RosterPushBodySchema } from '../schemas.js';
import { adminTokenOrParticipantOf } from './access.js';

/**
 * The roster in force. `POST /hub/roster` takes a new signed version (the
 * home's admin token, or a participant whose access is admin) and puts it in
 * force at once; the document itself must be signed by admins of the version
 * in force, whoever sends it. A first roster (ending local mode) takes the
 * admin token: the hub refuses it from a participant. A version that drops
 * members holding live sessions needs `confirm: true` in the body. `GET /hub/roster` (admin token) is what
 * `parley roster` reads: the roster, its file, and every participant's key
 * and access, to show handles and to resolve `@handle`.
 */
export function rosterRoutes(hub: Hub, auth: Authenticator, admin: AdminCredential | undefined, adminOnly: MiddlewareHandler | undefined): Hono<{ Variables: AuthVariables & { adminToken?: boolean } }> {
  const app = new Hono<{ Variables: AuthVariables & { adminToken?: boolean } }>();
  app.post('/hub/roster', adminTokenOrParticipantOf(auth, admin), async (c) => {
    if (!c.get('adminToken')) c.get('actor').assertMay('roster');
    // The shape first (INVALID_INPUT naming the field, like every route); then whether it may be in force.
    const { confirm, ...doc } = parseInput(RosterPushBodySchema, await jsonBody(c));
    const { roster, file, written } = await hub.acceptRoster(doc, { from: c.get('adminToken') ? 'owner' : 'participant', confirm: confirm === true });
    return c.json({ accepted: { org_id: roster.org_id, version: roster.version, members: roster.members.length }, trust: hub.trust, file, written });
  });
  if (adminOnly) {
    app.get('/hub/roster', adminOnly, (c) => {
      const { current, chain, file } = hub.roster();
      const participants = hub.participantsWithAccess().map((p) => ({
        handle: p.handle,
        kind: p.profile.kind,
        pubkey: p.pubkey,
        access: p.access,
      }));
      return c.json({ trust: hub.trust, roster: current ?? null, versions: chain.map((r) => r.version), file, participants });
    });
  }
  return app;
}
