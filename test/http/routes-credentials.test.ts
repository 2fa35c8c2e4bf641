import { describe, expect, it } from 'vitest';
import { DEFAULT_SIGN_IN_MAX_FAILURES } from '../../src/config/defaults.js';
import { ROUTES } from '../../src/http/openapi.js';
import { joinOver } from '../helpers/serve.js';
import { servedHubsPerTest } from '../helpers/served-hub.js';
import { callAt, errorOf, fillRoute, PASSWORD, routeKey } from './routes-hub.js';

/**
 * The REST contract, route by route, against the real hub in a child process:
 * every route refuses requests without valid credentials. The route list is
 * the one the OpenAPI document is built from (openapi.test.ts keeps it equal
 * to the routes the app serves), so a new route is covered here or this test
 * fails.
 */
const served = servedHubsPerTest();

describe('http routes: credentials', () => {
  it('routes - every route but /healthz answers 401 without valid credentials, before reading anything', async () => {
    // A hub of its own: the password guesses below make password sign-in wait (10 min here, so the count below is exact).
    const { hub: guarded } = await served.serve(served.home(), { env: { PARLEY_WEBUI_PASSWORD: PASSWORD, PARLEY_WEBUI_SIGN_IN_BACKOFF_MS: '600000' } });
    const guardedAdmin = guarded.adminToken();
    const agent = await joinOver(guarded, { handle: 'agent', session: 'proj' });
    const at = (method: string, route: string, headers: Record<string, string>, body?: unknown) => callAt(guarded.url, method, route, { headers, ...(body === undefined ? {} : { body }) });
    expect((await at('GET', '/healthz', {})).status).toBe(200);
    const refusedCredentials: Array<[string, Record<string, string>]> = [
      ['none', {}],
      ['a forged bearer token', { authorization: 'Bearer pt_forged-token-that-was-never-issued' }],
      ['a malformed authorization header', { authorization: 'Token abc' }],
      ['the wrong hub password', { authorization: `Basic ${Buffer.from('human:guess').toString('base64')}` }],
      ['a forged session cookie', { cookie: 'parley_session=forged' }],
    ];
    let passwordLockouts = 0;
    const routes = [...ROUTES.filter((route) => route.auth !== 'none'), { method: 'get', path: '/api/v1/no-such-route', auth: 'participant' } as const];
    expect(routes.length).toBeGreaterThan(30);
    for (const route of routes) {
      const credentials = route.auth === 'admin' ? [...refusedCredentials, ['a participant token', { authorization: `Bearer ${agent}` }] as [string, Record<string, string>]] : refusedCredentials;
      for (const [what, headers] of credentials) {
        const answer = await at(route.method.toUpperCase(), fillRoute(route.path), headers, route.method === 'get' ? undefined : {});
        // Password guesses are throttled: after a few, the refusal is 429 instead of 401.
        if (what === 'the wrong hub password' && answer.status === 429) {
          passwordLockouts++;
          expect(errorOf(answer).code).toBe('RATE_LIMITED');
          continue;
        }
        expect(answer.status, `${routeKey(route)} with ${what}`).toBe(401);
        expect(errorOf(answer).code, `${routeKey(route)} with ${what}`).toBe('UNAUTHORIZED');
        expect(errorOf(answer).message.length).toBeGreaterThan(10);
      }
    }
    // Admin routes take only the admin token, so no password is checked there.
    const passwordRoutes = routes.filter((route) => route.auth !== 'admin').length;
    expect(passwordLockouts).toBe(passwordRoutes - DEFAULT_SIGN_IN_MAX_FAILURES);
    // The admin token is refused on participant routes too: it names no participant.
    const asAdmin = await at('GET', '/api/v1/whoami', { authorization: `Bearer ${guardedAdmin}` });
    expect(asAdmin.status).toBe(401);
  });
});
