import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIGN_IN_MAX_FAILURES } from '../../src/config/defaults.js';
import { ParleyError } from '../../src/errors/parley-error.js';
import { clientKeyOf, LOOPBACK_CLIENT } from '../../src/http/client-key.js';
import { SignInThrottle, type SignInAttempt, type SignInLimits } from '../../src/http/sign-in-throttle.js';
import { APP_BASE, appOf, testHubsClosedAfterEach, type TestHub } from '../helpers/hub.js';

const hubs = testHubsClosedAfterEach();

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

// A long first wait, so that a slow machine cannot see it end mid-test.
async function appWith(password: string): Promise<{ t: TestHub; app: ReturnType<typeof appOf> }> {
  const t = await hubs.open({ config: { webui: { password, signIn: { backoffMs: 600_000 } } } });
  await t.hub.join({ handle: 'coder-1', session: 'proj' });
  return { t, app: appOf(t) };
}

describe('http password', () => {
  it('password - HTTP Basic with the hub password acts as the human in the chosen session', async () => {
    const { app } = await appWith('s3cret-pass');
    const ok = await app.request(`${APP_BASE}/api/v1/whoami?session=proj`, { headers: { authorization: basic('human', 's3cret-pass') } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ participant: { handle: 'human', profile: { kind: 'human' } }, session: { name: 'proj' } });
    const posted = await app.request(`${APP_BASE}/api/v1/threads/general/messages`, {
      method: 'POST',
      headers: { authorization: basic('', 's3cret-pass'), 'x-parley-session': 'proj', 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'from the human' }),
    });
    expect(posted.status).toBe(201);
    const wrong = await app.request(`${APP_BASE}/api/v1/whoami`, { headers: { authorization: basic('human', 'guess') } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: { code: 'UNAUTHORIZED', message: 'Wrong password.' } });
    const asAgent = await app.request(`${APP_BASE}/api/v1/whoami?session=proj`, { headers: { authorization: basic('coder-1', 's3cret-pass') } });
    expect(asAgent.status).toBe(403);
  });

  it('password - login sets an HttpOnly, SameSite=Strict cookie that works until logout', async () => {
    const { app } = await appWith('s3cret-pass');
    const bad = await app.request(`${APP_BASE}/api/v1/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: 'nope' }) });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('set-cookie')).toBeNull();
    const login = await app.request(`${APP_BASE}/api/v1/login`, {
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
    const me = await app.request(`${APP_BASE}/api/v1/whoami`, { headers: { cookie } });
    expect(await me.json()).toMatchObject({ participant: { handle: 'human' }, session: { name: 'proj' } });
    await app.request(`${APP_BASE}/api/v1/logout`, { method: 'POST', headers: { cookie } });
    expect((await app.request(`${APP_BASE}/api/v1/whoami`, { headers: { cookie } })).status).toBe(401);
  });

  it('password - with no password set, password sign-in is off and says so', async () => {
    const { app } = await appWith('');
    const res = await app.request(`${APP_BASE}/api/v1/whoami`, { headers: { authorization: basic('human', '') } });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('no password set');
  });

  it('password - after 10 wrong passwords, password sign-in is refused (429, Retry-After) even with the right one; tokens still work', async () => {
    const { t, app } = await appWith('s3cret-pass');
    const token = await t.hub.issueToken('coder-1', 'proj');
    for (let i = 0; i < DEFAULT_SIGN_IN_MAX_FAILURES; i++) {
      const wrong = await app.request(`${APP_BASE}/api/v1/whoami`, { headers: { authorization: basic('human', `guess-${i}`) } });
      expect(wrong.status).toBe(401);
    }
    const locked = await app.request(`${APP_BASE}/api/v1/whoami`, { headers: { authorization: basic('human', 's3cret-pass') } });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await locked.json()).toMatchObject({ error: { code: 'RATE_LIMITED', message: expect.stringContaining('Too many wrong passwords') } });
    const login = await app.request(`${APP_BASE}/api/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ password: 's3cret-pass' }),
    });
    expect(login.status).toBe(429);
    const withToken = await app.request(`${APP_BASE}/api/v1/whoami`, { headers: { authorization: `Bearer ${token}` } });
    expect(withToken.status).toBe(200);
  });
});

describe('password guessing over real sockets', () => {
  /** A GET from a chosen local address, on a connection of its own. */
  function getFrom(localAddress: string, url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const request = http.request(url, { localAddress, headers, agent: false }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      });
      request.on('error', reject);
      request.end();
    });
  }

  it('password - wrong passwords from 127.0.0.2, 127.0.0.3, … (other handles too) share one budget: all of loopback is one client', async () => {
    const t = await hubs.open({ config: { webui: { password: 's3cret-pass', signIn: { backoffMs: 600_000 } } } });
    await t.hub.join({ handle: 'coder-1', session: 'default' });
    const token = await t.hub.issueToken('coder-1');
    const server = await hubs.serve(t);
    const whoami = `${server.url}/api/v1/whoami`;
    // An attacker with every loopback address, and a new handle each time so that no account's budget runs out.
    for (let i = 0; i < DEFAULT_SIGN_IN_MAX_FAILURES; i++) {
      const wrong = await getFrom(`127.0.0.${2 + i}`, whoami, { authorization: basic(`guesser-${i}`, `guess-${i}`) });
      expect(wrong.status, `guess ${i} from 127.0.0.${2 + i}`).toBe(401);
    }
    for (const address of ['127.0.0.1', '127.1.2.3', '127.255.255.254']) {
      const next = await getFrom(address, whoami, { authorization: basic(`guesser-${address}`, 'guess-again') });
      expect(next.status, `from ${address}`).toBe(429);
      expect(JSON.parse(next.body)).toMatchObject({ error: { code: 'RATE_LIMITED', message: expect.stringContaining('from this client') } });
    }
    // Tokens are not password sign-in and keep working.
    const withToken = await getFrom('127.0.0.9', whoami, { authorization: `Bearer ${token}` });
    expect(withToken.status).toBe(200);
  });
});

const LIMITS: SignInLimits = { maxFailures: 3, backoffMs: 1000, maxBackoffMs: 8000, forgetMs: 3_600_000, maxTracked: 10_000 };

/** One password attempt: "ok", "wrong", or "wait" when refused before the password is even compared. */
function tryPassword(throttle: SignInThrottle, who: SignInAttempt, correct: boolean): 'ok' | 'wrong' | 'wait' {
  let compared = false;
  try {
    return throttle.attempt(who, () => {
      compared = true;
      return correct;
    })
      ? 'ok'
      : 'wrong';
  } catch (error) {
    expect(error).toBeInstanceOf(ParleyError);
    expect((error as ParleyError).code).toBe('RATE_LIMITED');
    expect(compared).toBe(false);
    return 'wait';
  }
}

describe('sign-in throttle', () => {
  it('throttle - after the free failures each wrong password doubles the wait up to the cap; the right password works the moment a wait ends, however much was guessed during it', () => {
    let now = 1_000_000;
    const throttle = new SignInThrottle(LIMITS, () => now);
    const human = { account: 'human', client: LOOPBACK_CLIENT };
    for (let i = 0; i < 3; i++) expect(tryPassword(throttle, human, false)).toBe('wrong');
    // The third failure starts a 1 s wait (ten typos no longer cost the human a minute).
    expect(tryPassword(throttle, human, true)).toBe('wait');
    let refused: ParleyError | undefined;
    try {
      throttle.attempt(human, () => true);
    } catch (error) {
      refused = error as ParleyError;
    }
    expect(refused?.details).toEqual({ retryAfterMs: 1000 });
    expect(refused?.message).toContain('for "@human"');
    // An attacker hammering through the wait is refused without being counted: the wait does not move.
    for (let i = 0; i < 1780; i++) {
      now += 0.5;
      expect(tryPassword(throttle, { account: 'human', client: LOOPBACK_CLIENT }, false)).toBe('wait');
    }
    now = 1_000_000 + 1000;
    expect(tryPassword(throttle, human, true)).toBe('ok');
    // Further failures: 2 s, 4 s, 8 s, then the 8 s cap; each wait ends exactly on time.
    for (const waitMs of [2000, 4000, 8000, 8000, 8000]) {
      expect(tryPassword(throttle, human, false)).toBe('wrong');
      now += waitMs - 1;
      expect(tryPassword(throttle, human, true)).toBe('wait');
      now += 1;
    }
    expect(tryPassword(throttle, human, true)).toBe('ok');
  });

  it('throttle - an account is throttled whichever clients guess at it, and a client whichever accounts it guesses at; a success restores no allowance', () => {
    const now = 5_000_000;
    const throttle = new SignInThrottle(LIMITS, () => now);
    // Three clients, one failure each, all at "human": the account must now wait, for a fourth client too.
    for (const client of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) expect(tryPassword(throttle, { account: 'human', client }, false)).toBe('wrong');
    expect(tryPassword(throttle, { account: 'Human', client: '10.0.0.4' }, true)).toBe('wait');
    // The other accounts are unaffected from a fresh client.
    expect(tryPassword(throttle, { account: 'alice', client: '10.0.0.4' }, true)).toBe('ok');
    // One client trying a new handle each time: the client must wait after three.
    for (const account of ['a', 'b', 'c']) expect(tryPassword(throttle, { account, client: '10.0.0.5' }, false)).toBe('wrong');
    expect(tryPassword(throttle, { account: 'd', client: '10.0.0.5' }, true)).toBe('wait');
    // A success between guesses does not give the guesser its free failures back.
    const shared = { account: 'bob', client: '10.0.0.6' };
    expect(tryPassword(throttle, shared, false)).toBe('wrong');
    expect(tryPassword(throttle, shared, false)).toBe('wrong');
    expect(tryPassword(throttle, shared, true)).toBe('ok');
    expect(tryPassword(throttle, shared, false)).toBe('wrong');
    expect(tryPassword(throttle, shared, true)).toBe('wait');
  });

  it('throttle - guessing from every 127.x address at once gets no more than the free failures before the first wait', () => {
    let now = 7_000_000;
    const throttle = new SignInThrottle({ ...LIMITS, maxFailures: DEFAULT_SIGN_IN_MAX_FAILURES }, () => now);
    let compared = 0;
    for (let i = 0; i < 1780; i++) {
      now += 0.5;
      const client = clientKeyOf(`127.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
      try {
        throttle.attempt({ account: 'human', client }, () => {
          compared++;
          return false;
        });
      } catch {
        // Refused before comparing.
      }
    }
    expect(compared).toBe(DEFAULT_SIGN_IN_MAX_FAILURES);
  });

  it('throttle - failures are forgotten after forgetMs without another; varying handles from many clients keeps at most maxTracked entries', () => {
    let now = 9_000_000;
    const throttle = new SignInThrottle({ ...LIMITS, forgetMs: 60_000, maxTracked: 100 }, () => now);
    const human = { account: 'human', client: LOOPBACK_CLIENT };
    for (let i = 0; i < 3; i++) tryPassword(throttle, human, false);
    now += 60_000;
    // Forgotten: three more free failures.
    for (let i = 0; i < 3; i++) expect(tryPassword(throttle, human, false)).toBe('wrong');
    expect(throttle.tracked).toBe(2);
    for (let i = 0; i < 5000; i++) {
      tryPassword(throttle, { account: `handle-${i}`, client: `10.${(i >> 8) & 255}.${i & 255}.1` }, false);
      expect(throttle.tracked).toBeLessThanOrEqual(100);
    }
    now += 60_000;
    tryPassword(throttle, human, false);
    // Everything older than forgetMs has gone: only the human's account and client remain.
    expect(throttle.tracked).toBe(2);
  });

  it('client key - every loopback address (127.0.0.0/8, ::1, IPv4-mapped) is one client; an IPv6 /64 is one client', () => {
    for (const address of ['127.0.0.1', '127.0.0.2', '127.255.1.9', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.2', '::ffff:7f00:2', '::ffff:127.9.9.9']) {
      expect(clientKeyOf(address), address).toBe(LOOPBACK_CLIENT);
    }
    expect(clientKeyOf('10.0.0.1')).toBe('10.0.0.1');
    expect(clientKeyOf('::ffff:10.0.0.1')).toBe('10.0.0.1');
    expect(clientKeyOf('2001:db8::1')).toBe(clientKeyOf('2001:0db8:0000:0000:ffff:1:2:3'));
    expect(clientKeyOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKeyOf('2001:db8:0:1::1')).not.toBe(clientKeyOf('2001:db8::1'));
    expect(clientKeyOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientKeyOf(undefined)).toBe('in-process');
  });
});
