import crypto from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie, deleteCookie } from 'hono/cookie';
import { ParleyError } from '../errors/parley-error.js';
import { type Actor, DEFAULT_SESSION, type Credential, type Hub } from '../hub/index.js';
import { unauthorized } from './http-error.js';
import { clientKeyOf } from './client-key.js';
import { nodeBindings } from '../request/node-bindings.js';
import { SignInThrottle } from './sign-in-throttle.js';
import { TokenCache } from './token-cache.js';

/** What an authenticated request carries: the participant and session it acts as. */
export interface AuthVariables {
  actor: Actor;
  /**
   * The token this request came with (bearer or sign-in cookie): its id, and a
   * signal that aborts when it is revoked (rotation, sign-out), so streams, MCP
   * sessions and waits it opened end then. Absent for the password, which is
   * not revoked while the hub runs.
   */
  credential?: Credential;
}

export const SESSION_COOKIE = 'parley_session';
const UNKNOWN_TOKEN = 'Unknown or revoked token: get a new one with "parley join" or "parley token rotate".';
export const DEFAULT_HUMAN_HANDLE = 'human';

/**
 * Who a request is. Agents (and scripts) send a bearer token, which names the
 * participant and the session. The human signs in with the hub password: HTTP
 * Basic with their handle as the user name (default "human"), or the cookie
 * that POST /api/v1/login sets; the session comes from the `X-Parley-Session`
 * header or `?session=` (default "default"). No body field ever changes who the
 * author is.
 */
export class Authenticator {
  readonly #passwordHash: Buffer | undefined;
  readonly #tokens: TokenCache;

  constructor(
    private readonly hub: Hub,
    password: string,
    private readonly throttle = new SignInThrottle(hub.config.webui.signIn),
  ) {
    this.#passwordHash = password ? sha256(password) : undefined;
    this.#tokens = new TokenCache(hub);
  }

  get passwordSet(): boolean {
    return this.#passwordHash !== undefined;
  }

  /**
   * Checks a password attempt to sign in as `account` from the request's
   * client. Throws RATE_LIMITED while that account or client must wait after
   * too many wrong passwords (see SignInThrottle).
   */
  checkPassword(c: Context, candidate: string, account: string): boolean {
    const hash = this.#passwordHash;
    if (hash === undefined) return false;
    return this.throttle.attempt({ account, client: clientKeyOf(clientAddress(c)) }, () => crypto.timingSafeEqual(sha256(candidate), hash));
  }

  /**
   * Signs the human in: the cookie's value is a bearer token of their own,
   * kept (hashed) in the store like any other, so a signed-in page survives a
   * hub restart and signing out revokes exactly that browser's token.
   */
  async login(handle: string, session: string, create = false): Promise<{ cookie: string; actor: Actor }> {
    const actor = await this.humanActor(handle, session, create);
    const cookie = await this.hub.issueToken(actor.participant.handle, actor.session.name);
    return { cookie, actor };
  }

  /** Whether the request carries a sign-in cookie that still names a participant (asked before sign-in, so it never refuses). */
  signedIn(c: Context): boolean {
    const cookie = getCookie(c, SESSION_COOKIE);
    return cookie !== undefined && this.hub.authenticate(cookie) !== undefined;
  }

  async logout(cookie: string | undefined): Promise<void> {
    if (cookie) await this.hub.revokeToken(cookie);
  }

  middleware(): MiddlewareHandler<{ Variables: AuthVariables }> {
    return async (c, next) => {
      const header = c.req.header('authorization') ?? '';
      const bearer = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
      // A bearer token, the common case, is looked up once for both its holder and its credential.
      if (bearer) {
        const holder = this.#tokens.holder(bearer);
        if (!holder) throw unauthorized(UNKNOWN_TOKEN);
        c.set('actor', holder.actor);
        c.set('credential', holder.credential);
        await next();
        return;
      }
      c.set('actor', await this.resolve(c));
      const token = this.#tokenOf(c);
      if (token !== undefined) c.set('credential', this.hub.credential(token));
      await next();
    };
  }

  async resolve(c: Context): Promise<Actor> {
    const header = c.req.header('authorization') ?? '';
    const bearer = /^Bearer\s+(\S+)$/i.exec(header);
    if (bearer?.[1]) {
      const holder = this.#tokens.holder(bearer[1]);
      if (!holder) throw unauthorized(UNKNOWN_TOKEN);
      return holder.actor;
    }
    const basic = /^Basic\s+(\S+)$/i.exec(header);
    if (basic?.[1]) {
      const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      const user = colon >= 0 ? decoded.slice(0, colon) : '';
      const password = colon >= 0 ? decoded.slice(colon + 1) : decoded;
      const handle = user || DEFAULT_HUMAN_HANDLE;
      if (!this.checkPassword(c, password, handle)) throw this.#refused();
      return this.humanActor(handle, sessionOf(c));
    }
    const cookie = getCookie(c, SESSION_COOKIE);
    const signedIn = cookie ? this.#tokens.holder(cookie)?.actor : undefined;
    if (signedIn) return signedIn;
    throw unauthorized(cookie ? 'Your sign-in has ended (signed out, or the token was revoked); sign in again.' : undefined);
  }

  /** The bearer token or sign-in cookie a request authenticated with (not the password). */
  #tokenOf(c: Context): string | undefined {
    const bearer = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '');
    if (bearer?.[1]) return bearer[1];
    if (/^Basic\s/i.test(c.req.header('authorization') ?? '')) return undefined;
    return getCookie(c, SESSION_COOKIE);
  }

  /**
   * The human participant, joined to the session on first use. Only a human
   * already registered, or the default one, unless `create` says the person
   * means a new one: a mistyped handle must not become a second human.
   */
  async humanActor(handle: string, session: string, create = false): Promise<Actor> {
    const existing = this.hub.participant(handle);
    if (existing && existing.profile.kind !== 'human') {
      throw new ParleyError('FORBIDDEN', `"@${existing.handle}" is an agent; the hub password signs in humans only. Use that agent's token instead.`);
    }
    if (!existing && !create && handle.toLowerCase() !== DEFAULT_HUMAN_HANDLE) {
      throw new ParleyError(
        'NOT_FOUND',
        `No human named "@${handle}" on this hub; check the handle. To add this human, sign in with "create": true (the page asks first) or run "parley join ${handle} --kind human".`,
        { field: 'handle' },
      );
    }
    try {
      return this.hub.actor(handle, session);
    } catch {
      return this.hub.join({ handle, session, profile: { kind: 'human' } });
    }
  }

  #refused(): ParleyError {
    return unauthorized(
      this.passwordSet
        ? 'Wrong password.'
        : 'This hub has no password set (PARLEY_WEBUI_PASSWORD or webui.password), so password sign-in is off; use a bearer token.',
    );
  }
}

/** How long a browser stays signed in without signing in again. */
const COOKIE_MAX_AGE_SECONDS = 30 * 24 * 3600;

export function setSessionCookie(c: Context, value: string): void {
  setCookie(c, SESSION_COOKIE, value, { httpOnly: true, sameSite: 'Strict', path: '/', maxAge: COOKIE_MAX_AGE_SECONDS });
}

export function clearSessionCookie(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/' });
}

export function sessionOf(c: Context): string {
  return c.req.header('x-parley-session') ?? c.req.query('session') ?? DEFAULT_SESSION;
}

/** The client's address, as the socket reports it (requests served in-process have none). */
function clientAddress(c: Context): string | undefined {
  return nodeBindings(c).incoming?.socket.remoteAddress;
}

function sha256(text: string): Buffer {
  return crypto.createHash('sha256').update(text).digest();
}
