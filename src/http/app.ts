import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ParleyError } from '../errors/parley-error.js';
import type { Hub } from '../hub/hub.js';
import type { Logger } from '../util/logger.js';
import { VERSION } from '../version.js';
import { getCookie } from 'hono/cookie';
import { Authenticator, DEFAULT_HUMAN_HANDLE, SESSION_COOKIE, clearSessionCookie, sessionOf, setSessionCookie, type AuthVariables } from './auth.js';
import { jsonBody } from './body.js';
import { hostGuard } from './host-guard.js';
import type { AdminCredential } from './admin-token.js';
import { errorResponse, unauthorized } from './http-error.js';
import { openApiDocument } from './openapi.js';
import { participantRoutes } from './routes/participants.js';
import { conversationRoutes } from './routes/conversation.js';
import { coordinationRoutes } from './routes/coordination.js';
import { streamRoutes } from './routes/stream.js';

/**
 * The hub's HTTP application: `/healthz` without authentication, the REST API
 * under `/api/v1` behind a bearer token, every response guarded against DNS
 * rebinding, every error in one JSON shape.
 */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export interface HttpAppOptions {
  hub: Hub;
  logger: Logger;
  /** Checks the admin credential (registering participants, rotating tokens). */
  admin?: AdminCredential;
  /** Host header values this hub answers to (see hostsFor). */
  allowedHosts: ReadonlySet<string>;
  maxBodyBytes?: number;
}

export function createHttpApp(options: HttpAppOptions): Hono {
  const { hub, logger } = options;
  const maxBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const app = new Hono();
  app.onError((error, c) => errorResponse(c, error, logger));
  app.notFound((c) =>
    errorResponse(c, new ParleyError('NOT_FOUND', `No route ${c.req.method} ${c.req.path}; see /api/v1 for the API.`)),
  );
  app.use('*', hostGuard(options.allowedHosts));

  app.get('/healthz', (c) => c.json({ ok: true, version: VERSION }));

  if (options.admin) {
    const admin = options.admin;
    const participants = new Hono();
    participants.use('*', async (c, next) => {
      const match = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '');
      if (!match?.[1] || !admin.verify(match[1])) {
        throw unauthorized(`This route needs the hub's admin token (the file ${admin.file} of the user running the hub); use "parley join".`);
      }
      await next();
    });
    participants.route('/', participantRoutes(hub));
    app.route('/api/v1/participants', participants);
  }

  const auth = new Authenticator(hub, hub.config.webui.password);
  app.post('/api/v1/login', async (c) => {
    const body = await jsonBody(c);
    const password = typeof body.password === 'string' ? body.password : '';
    if (!auth.checkPassword(password)) {
      throw unauthorized(auth.passwordSet ? 'Wrong password.' : 'This hub has no password set, so password sign-in is off; use a bearer token.');
    }
    const handle = typeof body.handle === 'string' && body.handle ? body.handle : DEFAULT_HUMAN_HANDLE;
    const session = typeof body.session === 'string' && body.session ? body.session : sessionOf(c);
    const cookie = await auth.login(handle, session);
    setSessionCookie(c, cookie);
    const actor = await auth.humanActor(handle, session);
    return c.json({ participant: actor.participant, session: actor.session });
  });
  app.post('/api/v1/logout', (c) => {
    auth.logout(getCookie(c, SESSION_COOKIE));
    clearSessionCookie(c);
    return c.json({ ok: true });
  });

  const api = new Hono<{ Variables: AuthVariables }>();
  api.use('*', auth.middleware());
  api.use(
    '*',
    bodyLimit({
      maxSize: maxBytes,
      onError: () => {
        throw new ParleyError('PAYLOAD_TOO_LARGE', `The request body is over ${maxBytes} bytes; send less, or reference a file.`, { field: 'body' });
      },
    }),
  );
  const document = openApiDocument();
  api.get('/openapi.json', (c) => c.json(document));
  api.route('/', conversationRoutes());
  api.route('/', coordinationRoutes());
  api.route('/', streamRoutes());
  app.route('/api/v1', api);
  return app;
}
