import { Hono, type MiddlewareHandler } from 'hono';
import { ParleyError, parseInput } from '../errors/parley-error.js';
import type { Hub } from '../hub/index.js';
import type { Logger } from '../util/logger.js';
import { VERSION } from '../version.js';
import { getCookie } from 'hono/cookie';
import { Authenticator, DEFAULT_HUMAN_HANDLE, SESSION_COOKIE, clearSessionCookie, sessionOf, setSessionCookie, type AuthVariables } from './auth.js';
import { bodyLimit, jsonBody, type BodyVariables } from '../request/body.js';
import { hostGuard, requestHost } from './host-guard.js';
import type { AdminCredential } from '../home/admin-token.js';
import { errorResponse, unauthorized } from './http-error.js';
import { LazyMcpSessions } from '../mcp/lazy-sessions.js';
import { openApiDocument } from './openapi.js';
import { accessRoutes } from './routes/access.js';
import { rosterRoutes } from './routes/roster.js';
import { WebAssets } from './web.js';
import { HubProofBodySchema, LoginBodySchema, SwitchSessionBodySchema } from './schemas.js';
import { HUB_PROOF_PATH } from '../trust/hub-proof.js';
import { participantRoutes } from './routes/participants.js';
import { hubStatusRoutes } from './routes/hub-status.js';
import { peerRoutes } from './routes/peers.js';
import { linkedHubRoutes } from './routes/linked-hubs.js';
import { conversationRoutes } from './routes/conversation.js';
import { directoryRoutes } from './routes/directory.js';
import { coordinationRoutes } from './routes/coordination.js';
import { streamRoutes } from './routes/stream.js';
import { agentHookRoutes } from './routes/agent-hook.js';

/**
 * The hub's HTTP application: `/healthz` and `/hub-proof` without authentication, the REST API
 * under `/api/v1` behind a bearer token, every response guarded against DNS
 * rebinding, every error in one JSON shape.
 */
export interface HttpAppOptions {
  hub: Hub;
  logger: Logger;
  /** Checks the admin credential (registering participants, rotating tokens). */
  admin?: AdminCredential;
  /** Host header values this hub answers to (see hostsFor). */
  allowedHosts: ReadonlySet<string>;
  /** The MCP sessions served at /mcp (the server closes them at shutdown); one is made when absent. */
  mcp?: LazyMcpSessions;
  /** Overrides the hub's server.maxBodyBytes. */
  maxBodyBytes?: number;
}

export function createHttpApp(options: HttpAppOptions): Hono<{ Variables: BodyVariables & AuthVariables }> {
  const { hub, logger } = options;
  const maxBytes = options.maxBodyBytes ?? hub.config.server.maxBodyBytes;
  const app = new Hono<{ Variables: BodyVariables & AuthVariables }>();
  app.onError((error, c) => errorResponse(c, error, logger));
  app.notFound((c) =>
    errorResponse(c, new ParleyError('NOT_FOUND', `No route ${c.req.method} ${c.req.path}; see /api/v1 for the API.`)),
  );
  app.use('*', hostGuard(options.allowedHosts));
  app.use('*', bodyLimit(maxBytes));

  app.get('/healthz', (c) => c.json({ ok: true, version: VERSION }));
  // Without authentication too: local clients ask it before they send a credential (see trust/hub-proof.ts).
  // The Host signed is one the guard above let through, so a relay on another port cannot pass this hub's proof on.
  app.post(HUB_PROOF_PATH, async (c) => {
    const { nonce } = parseInput(HubProofBodySchema, await jsonBody(c));
    return c.json(hub.proveIdentity(requestHost(c), nonce));
  });

  // The web page: public files (its login form is part of it); everything it shows comes from the authenticated API.
  const web = new WebAssets();
  app.get('/', (c) => web.page(c));
  app.get('/assets/*', (c) => web.asset(c));

  const auth = new Authenticator(hub, hub.config.webui.password);
  // Before the admin-token routes under /api/v1/participants: an admin participant may use it too.
  app.route('/api/v1', accessRoutes(hub, auth, options.admin));

  let adminOnly: MiddlewareHandler | undefined;
  if (options.admin) {
    const admin = options.admin;
    // Only registering, token rotation and the hub's own status need the admin token; listing participants is a participant's route.
    adminOnly = async (c, next) => {
      const match = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '');
      if (!match?.[1] || !admin.verify(match[1])) {
        throw unauthorized(`This route needs the hub's admin token (the file ${admin.file} of the user running the hub); use "parley join".`);
      }
      await next();
    };
    app.route('/api/v1/participants', participantRoutes(hub, adminOnly));
    app.route('/api/v1/hub', hubStatusRoutes(hub, adminOnly));
    app.route('/api/v1/hub', peerRoutes(hub, adminOnly));
  }
  app.route('/api/v1', rosterRoutes(hub, auth, options.admin, adminOnly));

  // Public: whether password sign-in is on, and whether this browser's cookie still signs it in. The page asks
  // here before whoami, so a page not signed in gets its answer without a 401 in the browser's console.
  app.get('/api/v1/login', (c) => c.json({ passwordSet: auth.passwordSet, signedIn: auth.signedIn(c) }));
  app.post('/api/v1/login', async (c) => {
    const body = parseInput(LoginBodySchema, await jsonBody(c));
    const handle = body.handle ?? DEFAULT_HUMAN_HANDLE;
    if (!auth.checkPassword(c, body.password, handle)) {
      throw unauthorized(auth.passwordSet ? 'Wrong password.' : 'This hub has no password set, so password sign-in is off; use a bearer token.');
    }
    const { cookie, actor } = await auth.login(handle, body.session ?? sessionOf(c), body.create === true);
    setSessionCookie(c, cookie);
    return c.json({ participant: actor.participant, session: actor.session });
  });
  // The page's session picker: the signed-in human moves to another session (joined on first use).
  app.post('/api/v1/login/session', auth.middleware(), async (c) => {
    const body = parseInput(SwitchSessionBodySchema, await jsonBody(c));
    const current = c.get('actor');
    const oldCookie = getCookie(c, SESSION_COOKIE);
    if (current.participant.profile.kind !== 'human' || !oldCookie) {
      throw new ParleyError('FORBIDDEN', 'Only a human signed in with the hub password (the page\'s cookie) can switch sessions; an agent uses a token of the other session.');
    }
    const { cookie, actor } = await auth.login(current.participant.handle, body.session);
    await auth.logout(oldCookie);
    setSessionCookie(c, cookie);
    return c.json({ participant: actor.participant, session: actor.session });
  });
  app.post('/api/v1/logout', async (c) => {
    await auth.logout(getCookie(c, SESSION_COOKIE));
    clearSessionCookie(c);
    return c.json({ ok: true });
  });

  // MCP over Streamable HTTP: how agents reach the hub, with the same credentials as the API.
  const mcp = options.mcp ?? new LazyMcpSessions(hub, logger);
  app.on(['GET', 'POST', 'DELETE'], '/mcp', auth.middleware(), (c) => mcp.handle(c, c.get('actor'), c.get('credential')));

  const api = new Hono<{ Variables: AuthVariables }>();
  api.use('*', auth.middleware());
  const document = openApiDocument();
  api.get('/openapi.json', (c) => c.json(document));
  api.route('/', directoryRoutes(hub.config));
  api.route('/', linkedHubRoutes(hub));
  api.route('/', conversationRoutes());
  api.route('/', coordinationRoutes());
  api.route('/', agentHookRoutes());
  api.route('/', streamRoutes({ keepAliveMs: hub.config.server.sseKeepAliveMs, stallTimeoutMs: hub.config.server.sseStallTimeoutMs, logger }));
  app.route('/api/v1', api);
  return app;
}
