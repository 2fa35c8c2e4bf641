import http from 'node:http';
import path from 'node:path';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/http/openapi.js';
import { tempHome } from '../helpers/hub.js';
import { joinOver, startServe, stopHubs, type RunningHub } from '../helpers/serve.js';
import { fileSnapshot } from '../helpers/store-snapshot.js';

/**
 * The REST contract, route by route, against the real hub in a child process:
 * every route refuses requests without valid credentials, and every route that
 * takes input refuses bad input with the error map's status, names the field,
 * and stores nothing. The route list is the one the OpenAPI document is built
 * from (openapi.test.ts keeps it equal to the routes the app serves), so a new
 * route is covered here or this test fails.
 */
const PASSWORD = 'correct horse battery staple';
const MAX_BODY_BYTES = 4096;

let hub: RunningHub;
let home: string;
let cleanup: () => void = () => undefined;
let alice: string;
let foreignThread: string;
let openRequest: string;

beforeAll(async () => {
  ({ home, cleanup } = tempHome());
  hub = await startServe(home, { env: { PARLEY_WEBUI_PASSWORD: PASSWORD, PARLEY_SERVER_MAX_BODY_BYTES: String(MAX_BODY_BYTES) } });
  alice = await joinOver(hub, { handle: 'alice', session: 'proj' });
  const bob = await joinOver(hub, { handle: 'bob', session: 'proj' });
  const carol = await joinOver(hub, { handle: 'carol', session: 'other' });
  const hidden = await call('POST', '/api/v1/threads', { token: carol, body: { name: 'hidden' } });
  foreignThread = (hidden.json as { id: string }).id;
  const asked = await call('POST', '/api/v1/requests', { token: alice, body: { to: 'bob', intent: 'review' } });
  openRequest = (asked.json as { request_id: string }).request_id;
  expect(foreignThread).toMatch(/\S/);
  expect(openRequest).toMatch(/\S/);
  expect(bob).toMatch(/^pt_/);
}, 30_000);

afterAll(async () => {
  await stopHubs();
  cleanup();
});

interface Answer {
  status: number;
  json: unknown;
}

/** One request over real HTTP; `body` is sent as JSON unless it is already a string. */
async function call(
  method: string,
  route: string,
  options: { token?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${hub.url}${route}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, json };
}

function errorOf(answer: Answer): { code: string; message: string; field?: string } {
  const error = (answer.json as { error?: { code: string; message: string; field?: string } }).error;
  if (!error) throw new Error(`expected an error body, got ${JSON.stringify(answer.json)}`);
  return error;
}

/** The route's path with its parameters filled in. */
function fill(route: string, values: Partial<Record<'thread' | 'handle' | 'id' | 'name', string>> = {}): string {
  return route
    .replace('{thread}', values.thread ?? 'general')
    .replace('{handle}', values.handle ?? 'alice')
    .replace('{id}', values.id ?? (openRequest || 'no-such-request'))
    .replace('{name}', values.name ?? 'standup');
}

const key = (route: { method: string; path: string }): string => `${route.method.toUpperCase()} ${route.path}`;

/** A valid body for each route that takes one: bad-input cases change one thing about it. */
const VALID_BODIES: Record<string, Record<string, unknown>> = {
  'POST /api/v1/login': { password: PASSWORD },
  'POST /api/v1/participants': { handle: 'dora', session: 'proj' },
  'POST /api/v1/participants/{handle}/tokens/rotate': { session: 'proj' },
  'POST /api/v1/threads': { name: 'fresh' },
  'POST /api/v1/threads/{thread}/rename': { name: 'renamed' },
  'POST /api/v1/threads/{thread}/side': { title: 'a side topic' },
  'POST /api/v1/threads/{thread}/close': { summary: 'we agreed' },
  'PUT /api/v1/threads/{thread}/subscription': { state: 'muted' },
  'POST /api/v1/threads/{thread}/messages': { text: 'hello' },
  'POST /api/v1/threads/{thread}/controls': { pause: { on: true } },
  'POST /api/v1/dm': { to: 'bob', text: 'hi' },
  'POST /api/v1/inbox/ack': { ids: ['01JZZZZZZZZZZZZZZZZZZZZZZZ'] },
  'POST /api/v1/requests': { to: 'bob', intent: 'review' },
  'POST /api/v1/requests/{id}/responses': { status: 'Accepted' },
  'PUT /api/v1/presence': { state: 'thinking' },
  'POST /api/v1/meetings/{name}/say': { text: 'hi all' },
};

/** Whose credentials a route takes, to get past authentication to the input checks. */
function credentialsFor(route: (typeof ROUTES)[number]): { token?: string } {
  if (route.auth === 'none') return {};
  return { token: route.auth === 'admin' ? hub.adminToken() : alice };
}

describe('http routes against a real hub', () => {
  it('routes - every route but /healthz answers 401 without valid credentials, before reading anything', async () => {
    expect((await call('GET', '/healthz')).status).toBe(200);
    const refusedCredentials: Array<[string, Record<string, string>]> = [
      ['none', {}],
      ['a forged bearer token', { authorization: 'Bearer pt_forged-token-that-was-never-issued' }],
      ['a malformed authorization header', { authorization: 'Token abc' }],
      ['the wrong hub password', { authorization: `Basic ${Buffer.from('human:guess').toString('base64')}` }],
      ['a forged session cookie', { cookie: 'parley_session=forged' }],
    ];
    const guarded = ROUTES.filter((route) => route.auth !== 'none');
    expect(guarded.length).toBeGreaterThan(30);
    for (const route of [...guarded, { method: 'get', path: '/api/v1/no-such-route', auth: 'participant' } as const]) {
      const credentials = route.auth === 'admin' ? [...refusedCredentials, ['a participant token', { authorization: `Bearer ${alice}` }] as [string, Record<string, string>]] : refusedCredentials;
      for (const [what, headers] of credentials) {
        const answer = await call(route.method.toUpperCase(), fill(route.path), { headers, ...(route.method === 'get' ? {} : { body: {} }) });
        expect(answer.status, `${key(route)} with ${what}`).toBe(401);
        expect(errorOf(answer).code, `${key(route)} with ${what}`).toBe('UNAUTHORIZED');
        expect(errorOf(answer).message.length).toBeGreaterThan(10);
      }
    }
  });

  it('routes - malformed JSON, wrong shapes, unknown and wrongly typed fields and oversized bodies are refused on every route that takes a body; nothing is stored', async () => {
    const before = fileSnapshot(path.join(home, 'parley.db'));
    const withBody = ROUTES.filter((route) => route.body);
    expect(Object.keys(VALID_BODIES).sort()).toEqual(withBody.map(key).sort());
    for (const route of withBody) {
      const method = route.method.toUpperCase();
      const where = fill(route.path);
      const auth = credentialsFor(route);
      const valid = VALID_BODIES[key(route)]!;
      const refused = async (what: string, body: unknown, status: number, code: string, field?: (f: string | undefined, message: string) => boolean) => {
        const answer = await call(method, where, { ...auth, body });
        expect(answer.status, `${key(route)}: ${what} → ${JSON.stringify(answer.json)}`).toBe(status);
        const error = errorOf(answer);
        expect(error.code, `${key(route)}: ${what}`).toBe(code);
        if (field) expect(field(error.field, error.message), `${key(route)}: ${what} named ${error.field}: ${error.message}`).toBe(true);
      };
      await refused('malformed JSON', '{"text": "unterminated', 400, 'INVALID_INPUT', (f) => f === 'body');
      await refused('a JSON array', '[1, 2]', 400, 'INVALID_INPUT', (f) => f === 'body');
      await refused('JSON null', 'null', 400, 'INVALID_INPUT', (f) => f === 'body');
      await refused('an unknown field', { ...valid, zzz_unknown: 1 }, 400, 'INVALID_INPUT', (f, m) => f === 'zzz_unknown' || m.includes('zzz_unknown'));
      await refused('a body over server.maxBodyBytes', { ...valid, padding: 'x'.repeat(MAX_BODY_BYTES) }, 413, 'PAYLOAD_TOO_LARGE', (f) => f === 'body');
      // Every string field of the body's schema, given a number instead.
      const schema = z.toJSONSchema(route.body!, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, { type?: string; enum?: unknown[] }> };
      const stringFields = Object.entries(schema.properties ?? {})
        .filter(([, property]) => property.type === 'string' || property.enum !== undefined)
        .map(([name]) => name);
      for (const name of stringFields) {
        await refused(`${name} of the wrong type`, { ...valid, [name]: 12345 }, 400, 'INVALID_INPUT', (f) => f === name);
      }
      // Controls take one key whose value has its own shape.
      if (route.path.endsWith('/controls')) {
        await refused('a control value of the wrong type', { pause: { on: 'yes' } }, 400, 'INVALID_INPUT', (f) => f === 'control.pause.on');
        await refused('no control at all', {}, 400, 'INVALID_INPUT', (f) => f === 'control');
      }
    }
    // A chunked body (no Content-Length) is counted as it is read.
    const chunked = await new Promise<Answer>((resolve, reject) => {
      const req = http.request(`${hub.url}/api/v1/threads/general/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${alice}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      });
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.write('{"text": "');
      for (let i = 0; i < 8; i++) req.write('y'.repeat(1024));
      req.end('"}');
    });
    expect(chunked.status).toBe(413);
    expect(errorOf(chunked)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', field: 'body' });
    expect(fileSnapshot(path.join(home, 'parley.db'))).toEqual(before);
  });

  it('routes - bad query parameters are refused naming the parameter; nothing is stored', async () => {
    const before = fileSnapshot(path.join(home, 'parley.db'));
    const cases: Array<[string, string]> = [
      ['/api/v1/threads/general/new?limit=abc', 'limit'],
      ['/api/v1/threads/general/new?limit=0', 'limit'],
      ['/api/v1/threads/general/history?before=x', 'before'],
      ['/api/v1/threads/general/history?after=1.5', 'after'],
      ['/api/v1/threads/general/export?format=pdf', 'format'],
      ['/api/v1/search?q=hello&limit=-1', 'limit'],
      ['/api/v1/inbox?peek=maybe', 'peek'],
      ['/api/v1/inbox/wait?timeout_ms=soon', 'timeout_ms'],
      ['/api/v1/deliveries?state=lost', 'state'],
      ['/api/v1/stream?since=yesterday', 'since'],
      ['/api/v1/stream?inbox=perhaps', 'inbox'],
      ['/api/v1/meetings/standup/hear?last_heard=x', 'last_heard'],
      ['/api/v1/meetings/standup/status?last_heard=-', 'last_heard'],
    ];
    const withQuery = ROUTES.filter((route) => route.query?.length);
    for (const route of withQuery) {
      const covered = cases.some(([url]) => url.startsWith(fill(route.path.replace('{name}', 'standup'))));
      expect(covered, `${key(route)} has a bad-query case`).toBe(true);
    }
    for (const [url, field] of cases) {
      const answer = await call('GET', url, { token: alice });
      expect(answer.status, `${url} → ${JSON.stringify(answer.json)}`).toBe(400);
      expect(errorOf(answer), url).toMatchObject({ code: 'INVALID_INPUT', field });
    }
    const badEventId = await call('GET', '/api/v1/stream', { token: alice, headers: { 'last-event-id': 'abc' } });
    expect(badEventId.status).toBe(400);
    expect(errorOf(badEventId)).toMatchObject({ code: 'INVALID_INPUT', field: 'Last-Event-ID' });
    expect(fileSnapshot(path.join(home, 'parley.db'))).toEqual(before);
  });

  it('routes - unknown ids and another session’s thread are refused on every route that names one; nothing is stored', async () => {
    const before = fileSnapshot(path.join(home, 'parley.db'));
    const threadRoutes = ROUTES.filter((route) => route.path.includes('{thread}'));
    expect(threadRoutes.length).toBeGreaterThanOrEqual(9);
    for (const route of threadRoutes) {
      const body = VALID_BODIES[key(route)];
      const method = route.method.toUpperCase();
      const unknown = await call(method, fill(route.path, { thread: 'no-such-thread' }), { token: alice, ...(body ? { body } : {}) });
      expect(unknown.status, `${key(route)} on an unknown thread → ${JSON.stringify(unknown.json)}`).toBe(404);
      expect(errorOf(unknown).code).toBe('NOT_FOUND');
      const foreign = await call(method, fill(route.path, { thread: foreignThread }), { token: alice, ...(body ? { body } : {}) });
      expect(foreign.status, `${key(route)} on another session's thread → ${JSON.stringify(foreign.json)}`).toBe(403);
      expect(errorOf(foreign).code).toBe('WRONG_SESSION');
    }
    const stream = await call('GET', `/api/v1/stream?thread=${foreignThread}`, { token: alice });
    expect(stream.status).toBe(403);
    const others: Array<[string, string, { token: string; body?: unknown }, number, string]> = [
      ['POST', '/api/v1/requests/no-such-request/responses', { token: alice, body: { status: 'Accepted' } }, 404, 'NOT_FOUND'],
      ['POST', '/api/v1/dm', { token: alice, body: { to: 'nobody', text: 'hi' } }, 404, 'NOT_FOUND'],
      ['POST', '/api/v1/dm', { token: alice, body: { to: 'carol', text: 'hi' } }, 404, 'NOT_FOUND'],
      ['POST', '/api/v1/requests', { token: alice, body: { to: 'nobody', intent: 'review' } }, 404, 'NOT_FOUND'],
      ['POST', '/api/v1/inbox/ack', { token: alice, body: { ids: ['01JZZZZZZZZZZZZZZZZZZZZZZZ'] } }, 404, 'NOT_FOUND'],
      ['POST', '/api/v1/participants/nobody/tokens/rotate', { token: hub.adminToken(), body: { session: 'proj' } }, 404, 'NOT_FOUND'],
      ['POST', '/api/v1/threads/general/controls', { token: alice, body: { mute: { targets: ['nobody'] } } }, 404, 'NOT_FOUND'],
    ];
    for (const [method, url, options, status, code] of others) {
      const answer = await call(method, url, options);
      expect(answer.status, `${method} ${url} ${JSON.stringify(options.body)} → ${JSON.stringify(answer.json)}`).toBe(status);
      expect(errorOf(answer).code).toBe(code);
    }
    expect(fileSnapshot(path.join(home, 'parley.db'))).toEqual(before);
  });
});
