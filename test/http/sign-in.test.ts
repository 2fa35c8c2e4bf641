import { describe, expect, it } from 'vitest';
import { APP_BASE, appOf, testHubsClosedAfterEach, type TestHub } from '../helpers/hub.js';

/** Signing a human in with the hub password: who may be signed in, and what the page may ask before. */
const hubs = testHubsClosedAfterEach();

const PASSWORD = 's3cret-pass';
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

async function appWithHumans() {
  const t = await hubs.open({ config: { webui: { password: PASSWORD } } });
  await t.hub.join({ handle: 'coder-1', session: 'proj' });
  await t.hub.join({ handle: 'alice', session: 'proj', profile: { kind: 'human' } });
  return { t, app: appOf(t) };
}

const handles = (t: TestHub) => t.hub.participantsWithAccess().map((p) => p.handle).sort();

function login(app: ReturnType<typeof appOf>, body: Record<string, unknown>) {
  return app.request(`${APP_BASE}/api/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ password: PASSWORD, ...body }),
  });
}

describe('http sign-in', () => {
  it('sign-in - a handle no participant has is refused (404, field handle) and creates no one', async () => {
    const { t, app } = await appWithHumans();
    const typo = await login(app, { handle: 'alcie', session: 'proj' });
    expect(typo.status).toBe(404);
    expect(typo.headers.get('set-cookie')).toBeNull();
    expect(await typo.json()).toEqual({
      error: {
        code: 'NOT_FOUND',
        field: 'handle',
        message: 'No human named "@alcie" on this hub; check the handle. To add this human, sign in with "create": true (the page asks first) or run "parley join alcie --kind human".',
      },
    });
    expect(handles(t)).toEqual(['alice', 'coder-1']);
  });

  it('sign-in - with "create": true a new handle becomes a human and is signed in', async () => {
    const { t, app } = await appWithHumans();
    const created = await login(app, { handle: 'bob', session: 'proj', create: true });
    expect(created.status).toBe(200);
    expect(await created.json()).toMatchObject({ participant: { handle: 'bob', profile: { kind: 'human' } }, session: { name: 'proj' } });
    expect(handles(t)).toEqual(['alice', 'bob', 'coder-1']);
  });

  it('sign-in - an existing human (another case too, a session not joined yet) and the default human need no flag', async () => {
    const { t, app } = await appWithHumans();
    const alice = await login(app, { handle: 'Alice', session: 'elsewhere' });
    expect(alice.status).toBe(200);
    expect(await alice.json()).toMatchObject({ participant: { handle: 'alice' }, session: { name: 'elsewhere' } });
    const human = await login(app, {});
    expect(human.status).toBe(200);
    expect(await human.json()).toMatchObject({ participant: { handle: 'human', profile: { kind: 'human' } } });
    expect(handles(t)).toEqual(['alice', 'coder-1', 'human']);
  });

  it('sign-in - HTTP Basic with an unknown user name is refused the same way and creates no one', async () => {
    const { t, app } = await appWithHumans();
    const typo = await app.request(`${APP_BASE}/api/v1/whoami`, { headers: { authorization: basic('alcie', PASSWORD) } });
    expect(typo.status).toBe(404);
    expect(await typo.json()).toMatchObject({ error: { code: 'NOT_FOUND', field: 'handle' } });
    const alice = await app.request(`${APP_BASE}/api/v1/whoami?session=proj`, { headers: { authorization: basic('alice', PASSWORD) } });
    expect(alice.status).toBe(200);
    expect(handles(t)).toEqual(['alice', 'coder-1']);
  });

  it('sign-in - a wrong password with an unknown handle says "Wrong password", not whether the handle exists', async () => {
    const { app } = await appWithHumans();
    const wrong = await login(app, { handle: 'alcie', password: 'guess' });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: { code: 'UNAUTHORIZED', message: 'Wrong password.' } });
  });

  it('sign-in - GET /login answers 200 whether or not the cookie signs the browser in', async () => {
    const { app } = await appWithHumans();
    const ask = async (cookie?: string) => {
      const res = await app.request(`${APP_BASE}/api/v1/login`, { headers: cookie ? { cookie } : {} });
      expect(res.status).toBe(200);
      return res.json();
    };
    expect(await ask()).toEqual({ passwordSet: true, signedIn: false });
    const signedIn = await login(app, { handle: 'alice' });
    const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0]!;
    expect(await ask(cookie)).toEqual({ passwordSet: true, signedIn: true });
    await app.request(`${APP_BASE}/api/v1/logout`, { method: 'POST', headers: { cookie } });
    expect(await ask(cookie)).toEqual({ passwordSet: true, signedIn: false });
    expect(await ask('parley_session=not-a-token')).toEqual({ passwordSet: true, signedIn: false });
  });
});
