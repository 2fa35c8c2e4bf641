import { afterEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../src/http/app.js';
import { hostsFor } from '../../src/http/host-guard.js';
import { createSilentLogger } from '../../src/util/logger.js';
import { openTestHub, type TestHub } from '../helpers/hub.js';

/** Signing a human in with the hub password: who may be signed in, and what the page may ask before. */
let t: TestHub | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const BASE = 'http://127.0.0.1:7420';
const PASSWORD = 's3cret-pass';

async function appWithHumans() {
  t = await openTestHub({ config: { webui: { password: PASSWORD } } });
  await t.hub.join({ handle: 'coder-1', session: 'proj' });
  await t.hub.join({ handle: 'alice', session: 'proj', profile: { kind: 'human' } });
  return createHttpApp({ hub: t.hub, logger: createSilentLogger(), allowedHosts: hostsFor('127.0.0.1', 7420) });
}

function login(app: Awaited<ReturnType<typeof appWithHumans>>, body: Record<string, unknown>) {
  return app.request(`${BASE}/api/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ password: PASSWORD, ...body }),
  });
}

describe('http sign-in', () => {
  it('sign-in - GET /login answers 200 whether or not the cookie signs the browser in', async () => {
    const app = await appWithHumans();
    const ask = async (cookie?: string) => {
      const res = await app.request(`${BASE}/api/v1/login`, { headers: cookie ? { cookie } : {} });
      expect(res.status).toBe(200);
      return res.json();
    };
    expect(await ask()).toEqual({ passwordSet: true, signedIn: false });
    const signedIn = await login(app, { handle: 'alice' });
    const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0]!;
    expect(await ask(cookie)).toEqual({ passwordSet: true, signedIn: true });
    await app.request(`${BASE}/api/v1/logout`, { method: 'POST', headers: { cookie } });
    expect(await ask(cookie)).toEqual({ passwordSet: true, signedIn: false });
    expect(await ask('parley_session=not-a-token')).toEqual({ passwordSet: true, signedIn: false });
  });
});
