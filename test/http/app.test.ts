import { describe, expect, it } from 'vitest';
import { APP_BASE, appOf, testHubsClosedAfterEach } from '../helpers/hub.js';

const hubs = testHubsClosedAfterEach();


async function setup(maxBodyBytes?: number) {
  const t = await hubs.open();
  await t.hub.join({ handle: 'human', session: 'proj', profile: { kind: 'human' } });
  await t.hub.join({ handle: 'coder-1', session: 'proj' });
  const token = await t.hub.issueToken('coder-1', 'proj');
  const humanToken = await t.hub.issueToken('human', 'proj');
  const app = appOf(t, maxBodyBytes ? { maxBodyBytes } : {});
  const call = (path: string, init: RequestInit & { token?: string } = {}) => {
    const headers = new Headers(init.headers);
    if (init.token) headers.set('authorization', `Bearer ${init.token}`);
    if (init.body !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
    return app.request(`${APP_BASE}${path}`, { ...init, headers });
  };
  return { t, app, call, token, humanToken };
}

describe('http', () => {
  it('http - /healthz answers without credentials', async () => {
    const { call } = await setup();
    const res = await call('/healthz');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, version: expect.any(String) });
  });

  it('http - every API route answers 401 without a valid token, in the one error shape', async () => {
    const { call } = await setup();
    for (const [method, path] of [
      ['GET', '/api/v1/whoami'],
      ['POST', '/api/v1/threads/general/messages'],
      ['GET', '/api/v1/threads/general/new'],
      ['GET', '/api/v1/inbox'],
      ['GET', '/api/v1/no-such-route'],
    ] as const) {
      for (const token of [undefined, 'pt_forged']) {
        const res = await call(path, { method, ...(token ? { token } : {}), ...(method === 'POST' ? { body: '{"text":"x"}' } : {}) });
        expect(res.status, `${method} ${path}`).toBe(401);
        expect(await res.json()).toMatchObject({ error: { code: 'UNAUTHORIZED', message: expect.stringContaining('token') } });
      }
    }
  });

  it('http - a post is authored by the token’s participant, never a body field', async () => {
    const { call, token, humanToken } = await setup();
    const res = await call('/api/v1/threads/general/messages', { method: 'POST', token, body: JSON.stringify({ text: 'hello from coder' }) });
    expect(res.status).toBe(201);
    const forged = await call('/api/v1/threads/general/messages', { method: 'POST', token, body: JSON.stringify({ text: 'x', from: 'human' }) });
    expect(forged.status).toBe(400);
    expect(await forged.json()).toMatchObject({ error: { code: 'INVALID_INPUT', field: 'from' } });
    const read = await call('/api/v1/threads/general/new', { token: humanToken });
    const body = (await read.json()) as { events: Array<{ author: string; content: unknown }> };
    expect(body.events.filter((e) => e.content === 'hello from coder').map((e) => e.author)).toEqual(['coder-1']);
  });

  it('http - bad input gets the error map’s status and nothing is stored', async () => {
    const { t, call, token } = await setup(2048);
    const before = t.hub.stats().events;
    const cases: Array<[string, RequestInit & { token?: string }, number, string]> = [
      ['/api/v1/threads/general/messages', { method: 'POST', token, body: '{not json' }, 400, 'INVALID_INPUT'],
      ['/api/v1/threads/general/messages', { method: 'POST', token, body: JSON.stringify({ text: 42 }) }, 400, 'INVALID_INPUT'],
      ['/api/v1/threads/general/messages', { method: 'POST', token, body: JSON.stringify({ text: 'x'.repeat(5000) }) }, 413, 'PAYLOAD_TOO_LARGE'],
      ['/api/v1/threads/nowhere/messages', { method: 'POST', token, body: JSON.stringify({ text: 'x' }) }, 404, 'NOT_FOUND'],
      ['/api/v1/threads/general/new?limit=abc', { token }, 400, 'INVALID_INPUT'],
      ['/api/v1/threads/general/new?limit=100000', { token }, 400, 'INVALID_INPUT'],
    ];
    for (const [path, init, status, code] of cases) {
      const res = await call(path, init);
      expect(res.status, path).toBe(status);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe(code);
    }
    expect(t.hub.stats().events).toBe(before);
  });

  it('http - a thread of another session answers exactly as an unknown one (404 NOT_FOUND)', async () => {
    const { t, call, token } = await setup();
    const other = await t.hub.join({ handle: 'coder-2', session: 'elsewhere' });
    const elsewhere = await other.createChannel({ name: 'secret' });
    const unknown = '01JZZZZZZZZZZZZZZZZZZZZZZZ';
    const answers = await Promise.all(
      [elsewhere.id, unknown].map(async (id) => {
        const res = await call(`/api/v1/threads/${id}/new`, { token });
        return { status: res.status, body: JSON.stringify(await res.json()).replace(id, '<id>') };
      }),
    );
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]?.status).toBe(404);
    expect(JSON.parse(answers[0]!.body)).toMatchObject({ error: { code: 'NOT_FOUND', field: 'thread' } });
  });

  it('http - DNS rebinding: a foreign Host or Origin is refused', async () => {
    const { app, token } = await setup();
    const foreignHost = await app.request('http://evil.example:7420/api/v1/whoami', { headers: { authorization: `Bearer ${token}` } });
    expect(foreignHost.status).toBe(403);
    const foreignOrigin = await app.request(`${APP_BASE}/api/v1/whoami`, { headers: { authorization: `Bearer ${token}`, origin: 'http://evil.example' } });
    expect(foreignOrigin.status).toBe(403);
    expect(await foreignOrigin.json()).toMatchObject({ error: { code: 'FORBIDDEN' } });
    const sameOrigin = await app.request(`${APP_BASE}/api/v1/whoami`, { headers: { authorization: `Bearer ${token}`, origin: APP_BASE } });
    expect(sameOrigin.status).toBe(200);
    expect(await sameOrigin.json()).toMatchObject({ participant: { handle: 'coder-1' }, session: { name: 'proj' } });
  });
});
