import { afterEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../src/http/app.js';
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
});
