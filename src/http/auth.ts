import type { MiddlewareHandler } from 'hono';
import type { Actor } from '../hub/actor.js';
import type { Hub } from '../hub/hub.js';
import { unauthorized } from './http-error.js';

/** What an authenticated request carries: the participant and session its token names. */
export interface AuthVariables {
  actor: Actor;
}

/**
 * Bearer-token authentication. The token alone decides who the author is and
 * in which session; no body field can change it.
 */
export function bearerAuth(hub: Hub): MiddlewareHandler<{ Variables: AuthVariables }> {
  return async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match?.[1]) throw unauthorized();
    const actor = hub.authenticate(match[1]);
    if (!actor) throw unauthorized('Unknown or revoked token: get a new one with "parley join" or "parley token rotate".');
    c.set('actor', actor);
    await next();
  };
}
