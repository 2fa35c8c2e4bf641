import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SIGN_IN_MAX_FAILURES } from '../../src/config/defaults.js';
import type { ParleyError } from '../../src/errors/parley-error.js';
import { createHttpApp } from '../../src/http/app.js';
import { SignInThrottle } from '../../src/http/sign-in-throttle.js';
import { hostsFor } from '../../src/http/host-guard.js';
import { createSilentLogger } from '../../src/util/logger.js';
import { openTestHub, type TestHub } from '../helpers/hub.js';

let t: TestHub | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const BASE = 'http://127.0.0.1:7420';
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

async function appWith(password: string) {
  t = await openTestHub({ config: { webui: { password } } });
  await t.hub.join({ handle: 'coder-1', session: 'proj' });
  return createHttpApp({ hub: t.hub, logger: createSilentLogger(), allowedHosts: hostsFor('127.0.0.1', 7420) });
}

describe('http password', () => {
  it('password - HTTP Basic with the hub password acts as the human in the chosen session', async () => {
    const app = await appWith('s3cret-pass');
    const ok = await app.request(`${BASE}/api/v1/whoami?session=proj`, { headers: { authorization: basic('human', 's3cret-pass') } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ participant: { handle: 'human', profile: { kind: 'human' } }, session: { name: 'proj' } });
    const posted = await app.request(`${BASE}/api/v1/threads/general/messages`, {
      method: 'POST',
      headers: { authorization: basic('', 's3cret-pass'), 'x-parley-session': 'proj', 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'from the human' }),
    });
    expect(posted.status).toBe(201);
    const wrong = await app.request(`${BASE}/api/v1/whoami`, { headers: { authorization: basic('human', 'guess') } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: { code: 'UNAUTHORIZED', message: 'Wrong password.' } });
    const asAgent = await app.request(`${BASE}/api/v1/whoami?session=proj`, { headers: { authorization: basic('coder-1', 's3cret-pass') } });
    expect(asAgent.status).toBe(403);
  });

  it('password - login sets an HttpOnly, SameSite=Strict cookie that works until logout', async () => {
    const app = await appWith('s3cret-pass');
    const bad = await app.request(`${BASE}/api/v1/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: 'nope' }) });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('set-cookie')).toBeNull();
    const login = await app.request(`${BASE}/api/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ password: 's3cret-pass', session: 'proj' }),
    });
    expect(login.status).toBe(200);
    const setCookie = login.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/parley_session=[\w-]+/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    const cookie = setCookie.split(';')[0]!;
    const me = await app.request(`${BASE}/api/v1/whoami`, { headers: { cookie } });
    expect(await me.json()).toMatchObject({ participant: { handle: 'human' }, session: { name: 'proj' } });
    await app.request(`${BASE}/api/v1/logout`, { method: 'POST', headers: { cookie } });
    expect((await app.request(`${BASE}/api/v1/whoami`, { headers: { cookie } })).status).toBe(401);
  });

  it('password - with no password set, password sign-in is off and says so', async () => {
    const app = await appWith('');
    const res = await app.request(`${BASE}/api/v1/whoami`, { headers: { authorization: basic('human', '') } });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('no password set');
  });

  it('password - after 10 wrong passwords, password sign-in is refused (429, Retry-After) even with the right one; tokens still work', async () => {
    const app = await appWith('s3cret-pass');
    const token = await t!.hub.issueToken('coder-1', 'proj');
    for (let i = 0; i < DEFAULT_SIGN_IN_MAX_FAILURES; i++) {
      const wrong = await app.request(`${BASE}/api/v1/whoami`, { headers: { authorization: basic('human', `guess-${i}`) } });
      expect(wrong.status).toBe(401);
    }
    const locked = await app.request(`${BASE}/api/v1/whoami`, { headers: { authorization: basic('human', 's3cret-pass') } });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await locked.json()).toMatchObject({ error: { code: 'RATE_LIMITED', message: expect.stringContaining('Too many wrong passwords') } });
    const login = await app.request(`${BASE}/api/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ password: 's3cret-pass' }),
    });
    expect(login.status).toBe(429);
    const withToken = await app.request(`${BASE}/api/v1/whoami`, { headers: { authorization: `Bearer ${token}` } });
    expect(withToken.status).toBe(200);
  });
});

describe('sign-in throttle', () => {
  it('throttle - counts failures per address within the window; a success clears them; the lockout ends with the window', () => {
    let now = 1_000_000;
    const throttle = new SignInThrottle(3, 60_000, () => now);
    for (let i = 0; i < 3; i++) {
      expect(() => throttle.check('10.0.0.1')).not.toThrow();
      throttle.failed('10.0.0.1');
    }
    const refused = (() => {
      try {
        throttle.check('10.0.0.1');
      } catch (error) {
        return error as ParleyError;
      }
      return undefined;
    })();
    expect(refused?.code).toBe('RATE_LIMITED');
    expect(refused?.details).toEqual({ retryAfterMs: 60_000 });
    // Another address is not affected.
    expect(() => throttle.check('10.0.0.2')).not.toThrow();
    now += 59_999;
    expect(() => throttle.check('10.0.0.1')).toThrow(/refused for 1 s/);
    now += 1;
    expect(() => throttle.check('10.0.0.1')).not.toThrow();
    // Two failures, then a success: the count starts again.
    throttle.failed('10.0.0.2');
    throttle.failed('10.0.0.2');
    throttle.succeeded('10.0.0.2');
    throttle.failed('10.0.0.2');
    throttle.failed('10.0.0.2');
    expect(() => throttle.check('10.0.0.2')).not.toThrow();
  });
});
