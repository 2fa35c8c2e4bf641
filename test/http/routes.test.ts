import http from 'node:http';
import path from 'node:path';
import { z } from 'zod';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SIGN_IN_MAX_FAILURES } from '../../src/config/defaults.js';
import { ROUTES } from '../../src/http/openapi.js';
import { hubKeyPathOf, readKeyFile } from '../../src/trust/key-files.js';
import { formatPublicKey, rawPublicKeyOf } from '../../src/trust/node-id.js';
import { signRoster } from '../../src/trust/roster.js';
import { handedIn, messageFields } from '../helpers/envelope.js';
import { joinOver } from '../helpers/serve.js';
import { servedHubForFile, servedHubsPerTest } from '../helpers/served-hub.js';

/**
 * The REST contract, route by route, against the real hub in a child process:
 * every route refuses requests without valid credentials, and every route that
 * takes input refuses bad input with the error map's status, names the field,
 * and stores nothing. The route list is the one the OpenAPI document is built
 * from (openapi.test.ts keeps it equal to the routes the app serves), so a new
 * route is covered here or this test fails.
 */
const PASSWORD = 'correct horse battery staple';
/** A well-formed thread id that names no thread. */
const UNKNOWN_ID = '01JZZZZZZZZZZZZZZZZZZZZZZZ';
const MAX_BODY_BYTES = 4096;

// alice calls every route, the steering and access ones too: an admin's.
const served = servedHubForFile({
  config: { trust: { access: { alice: 'admin' } } },
  env: { PARLEY_WEBUI_PASSWORD: PASSWORD, PARLEY_SERVER_MAX_BODY_BYTES: String(MAX_BODY_BYTES) },
});
const otherHubs = servedHubsPerTest();
let alice: string;
let foreignThread: string;
let openRequest: string;
let bob: string;

beforeAll(async () => {
  alice = await joinOver(served.hub, { handle: 'alice', session: 'proj' });
  bob = await joinOver(served.hub, { handle: 'bob', session: 'proj' });
  const carol = await joinOver(served.hub, { handle: 'carol', session: 'other' });
  const hidden = await call('POST', '/api/v1/threads', { token: carol, body: { name: 'hidden' } });
  foreignThread = (hidden.json as { id: string }).id;
  const asked = await call('POST', '/api/v1/requests', { token: alice, body: { to: 'bob', intent: 'review' } });
  openRequest = (asked.json as { request_id: string }).request_id;
  expect(foreignThread).toMatch(/\S/);
  expect(openRequest).toMatch(/\S/);
  expect(bob).toMatch(/^pt_/);
});

interface Answer {
  status: number;
  json: unknown;
}

/** One request over real HTTP; `body` is sent as JSON unless it is already a string or bytes (sent as they are). */
async function call(
  method: string,
  route: string,
  options: { token?: string; headers?: Record<string, string>; body?: unknown; noContentType?: boolean } = {},
  base = served.hub.url,
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | Uint8Array | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' || options.body instanceof Uint8Array ? options.body : JSON.stringify(options.body);
    // Bytes without a Content-Type go without one (fetch gives a string text/plain).
    if (!options.noContentType) headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${base}${route}`, { method, headers, ...(body === undefined ? {} : { body }) });
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
  'POST /hub-proof': { nonce: 'N'.repeat(43) },
  'POST /api/v1/login': { password: PASSWORD },
  'POST /api/v1/participants': { handle: 'dora', session: 'proj' },
  'POST /api/v1/participants/{handle}/tokens/rotate': { session: 'proj' },
  'POST /api/v1/participants/{handle}/tokens/run': { session: 'proj' },
  'POST /api/v1/participants/tokens/revoke': { token: 'not-a-token' },
  // alice (the handle filled in) keeps admin: the routes after this one still need it.
  'PUT /api/v1/participants/{handle}/access': { access: 'admin' },
  'POST /api/v1/threads': { name: 'fresh' },
  'POST /api/v1/threads/{thread}/rename': { name: 'renamed' },
  'POST /api/v1/threads/{thread}/read': { up_to: 1 },
  'POST /api/v1/login/session': { session: 'proj' },
  'POST /api/v1/threads/{thread}/side': { title: 'a side topic' },
  'POST /api/v1/threads/{thread}/close': { summary: 'we agreed' },
  'PUT /api/v1/threads/{thread}/subscription': { state: 'muted' },
  'POST /api/v1/threads/{thread}/messages': { text: 'hello' },
  'POST /api/v1/threads/{thread}/controls': { pause: { on: true } },
  'POST /api/v1/dm': { to: 'bob', text: 'hi' },
  // Well formed; the happy path below hands in a real one, signed with alice's key.
  'POST /api/v1/envelopes': { envelope: 'oA', sig: 'A'.repeat(86) },
  'POST /api/v1/inbox/ack': { ids: ['01JZZZZZZZZZZZZZZZZZZZZZZZ'] },
  'POST /api/v1/inbox/inject': { limit: 10 },
  'POST /api/v1/agent/hook': { event: 'tool', session: 'client-session-1' },
  'POST /api/v1/requests': { to: 'bob', intent: 'review' },
  'POST /api/v1/requests/{id}/responses': { status: 'Accepted' },
  'PUT /api/v1/presence': { state: 'thinking' },
  'PATCH /api/v1/profile': { model: 'a-model', client: 'a-client' },
  'POST /api/v1/meetings/{name}/say': { text: 'hi all' },
  // A roster of the right shape (unsigned: the bad-input cases are refused before any signature is checked).
  'POST /api/v1/hub/roster': { org_id: 'acme', version: 1, timestamp: '2026-11-24T12:00:00Z', members: [{ pubkey: `ed25519:${'A'.repeat(43)}`, role: 'admin' }] },
};

/** A message signed with alice's own key (held in the home), as a client holding its key hands it in. */
async function signedByAlice(thread: string, text: string): Promise<{ envelope: string; sig: string }> {
  const me = (await call('GET', '/api/v1/whoami', { token: alice })).json as { participant: { id: string; publicKey: string } };
  const key = readKeyFile(path.join(served.home, 'keys', 'participants', `${me.participant.id}.key`));
  return handedIn(messageFields({ id: '01KAPM5S0000000000000000R1', from: Buffer.from(me.participant.publicKey, 'base64'), thread, content: text }), key);
}

/** Whose credentials a route takes, to get past authentication to the input checks. */
function credentialsFor(route: (typeof ROUTES)[number]): { token?: string } {
  if (route.auth === 'none') return {};
  return { token: route.auth === 'admin' ? served.hub.adminToken() : alice };
}

describe('http routes against a real hub', () => {
  it('routes - every route but /healthz answers 401 without valid credentials, before reading anything', async () => {
    // A hub of its own: the password guesses below make password sign-in wait (10 min here, so the count below is exact).
    const { hub: guarded } = await otherHubs.serve(otherHubs.home(), { env: { PARLEY_WEBUI_PASSWORD: PASSWORD, PARLEY_WEBUI_SIGN_IN_BACKOFF_MS: '600000' } });
    const guardedAdmin = guarded.adminToken();
    const agent = await joinOver(guarded, { handle: 'agent', session: 'proj' });
    const at = (method: string, route: string, headers: Record<string, string>, body?: unknown) => call(method, route, { headers, ...(body === undefined ? {} : { body }) }, guarded.url);
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
        const answer = await at(route.method.toUpperCase(), fill(route.path), headers, route.method === 'get' ? undefined : {});
        // Password guesses are throttled: after a few, the refusal is 429 instead of 401.
        if (what === 'the wrong hub password' && answer.status === 429) {
          passwordLockouts++;
          expect(errorOf(answer).code).toBe('RATE_LIMITED');
          continue;
        }
        expect(answer.status, `${key(route)} with ${what}`).toBe(401);
        expect(errorOf(answer).code, `${key(route)} with ${what}`).toBe('UNAUTHORIZED');
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

  it('routes - malformed JSON, wrong shapes, unknown and wrongly typed fields and oversized bodies are refused on every route that takes a body; nothing is stored', async () => {
    const before = served.stored();
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
      const req = http.request(`${served.hub.url}/api/v1/threads/general/messages`, {
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
    expect(served.stored()).toEqual(before);
  });

  it('routes - bodies that are not JSON text are refused on every route that takes a body: another media type, bytes that are not UTF-8, a NUL, other control characters or an unpaired surrogate in any field; nothing is stored', async () => {
    const before = served.stored();
    const withBody = ROUTES.filter((route) => route.body);
    const utf8 = (text: string) => new TextEncoder().encode(text);
    const bytes = (...parts: Array<string | number[]>) => Buffer.concat(parts.map((part) => (typeof part === 'string' ? utf8(part) : Buffer.from(part))));
    for (const route of withBody) {
      const method = route.method.toUpperCase();
      const where = fill(route.path);
      const auth = credentialsFor(route);
      const valid = VALID_BODIES[key(route)]!;
      const refused = async (what: string, options: Omit<Parameters<typeof call>[2], 'token'>, status: number, code: string, field: string, message?: RegExp) => {
        const answer = await call(method, where, { ...auth, ...options });
        expect(answer.status, `${key(route)}: ${what} → ${JSON.stringify(answer.json)}`).toBe(status);
        expect(errorOf(answer), `${key(route)}: ${what}`).toMatchObject({ code, field });
        if (message) expect(errorOf(answer).message, `${key(route)}: ${what}`).toMatch(message);
      };
      // The media type: only application/json (in UTF-8) is read as JSON.
      const json = JSON.stringify(valid);
      await refused('a text/plain body', { body: json, headers: { 'content-type': 'text/plain' } }, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type', /application\/json/);
      await refused('a form body', { body: json, headers: { 'content-type': 'application/x-www-form-urlencoded' } }, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type');
      await refused('a body without Content-Type', { body: utf8(json), noContentType: true }, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type', /no Content-Type/);
      await refused('JSON declared in another charset', { body: json, headers: { 'content-type': 'application/json; charset=iso-8859-1' } }, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type');
      // Bytes that are not UTF-8 are refused, not replaced with U+FFFD.
      const [first] = Object.keys(valid);
      await refused('a stray byte', { body: bytes(`{"${first}": "`, [0xff], '"}') }, 400, 'INVALID_INPUT', 'body', /UTF-8/);
      await refused('a surrogate encoded as bytes (CESU-8)', { body: bytes(`{"${first}": "`, [0xed, 0xa0, 0x80], '"}') }, 400, 'INVALID_INPUT', 'body', /UTF-8/);
      await refused('an overlong NUL', { body: bytes(`{"${first}": "`, [0xc0, 0x80], '"}') }, 400, 'INVALID_INPUT', 'body', /UTF-8/);
      // Every string field of the body's schema, given a NUL, an escape, a lone CR and an unpaired surrogate
      // (JSON.stringify sends these as \u escapes, which JSON.parse accepts).
      const schema = z.toJSONSchema(route.body!, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, { type?: string; enum?: unknown[] }> };
      const stringFields = Object.entries(schema.properties ?? {})
        .filter(([, property]) => property.type === 'string' || property.enum !== undefined)
        .map(([name]) => name);
      for (const name of stringFields) {
        for (const [what, value] of [['a NUL', 'a\u0000b'], ['an escape sequence', '\u001b[2J'], ['a lone carriage return', 'over\rwrite'], ['an unpaired surrogate', 'a\ud800b']]) {
          await refused(`${what} in ${name}`, { body: { ...valid, [name]: value } }, 400, 'INVALID_INPUT', name);
        }
      }
    }
    // Inside JSON values and nested objects, the field named is the path to the string.
    const nested: Array<[string, string, unknown, string]> = [
      ['POST', '/api/v1/requests', { to: 'bob', intent: 'review', params: { files: ['a.ts', 'b\u0000.ts'] } }, 'params.files.1'],
      ['POST', '/api/v1/requests', { to: 'bob', intent: 'review', params: { ['k\ud800']: 1 } }, 'params'],
      ['POST', `/api/v1/requests/${openRequest}/responses`, { status: 'Completed', result: { out: 'x\udc00' } }, 'result.out'],
      ['POST', '/api/v1/threads/general/controls', { invite: { participant_id: 'zoe', profile: { nickname: 'z\u0000' } } }, 'control.invite.profile.nickname'],
      ['POST', '/api/v1/participants', { handle: 'zoe', session: 'proj', profile: { nickname: 'dave\u0007' } }, 'profile.nickname'],
      ['POST', '/api/v1/participants', { handle: 'zoe', session: 'proj', profile: { roles: ['ok', 'bad\u009b'] } }, 'profile.roles.1'],
    ];
    for (const [method, url, body, field] of nested) {
      const token = url === '/api/v1/participants' ? served.hub.adminToken() : url.includes('/responses') ? bob : alice;
      const answer = await call(method, url, { token, body });
      expect(answer.status, `${method} ${url} ${field} → ${JSON.stringify(answer.json)}`).toBe(400);
      expect(errorOf(answer), `${method} ${url}`).toMatchObject({ code: 'INVALID_INPUT', field });
    }
    // Path segments are text too.
    for (const url of ['/api/v1/threads/general%00/messages', '/api/v1/meetings/stand%0Dup/say']) {
      const answer = await call('POST', url, { token: alice, body: { text: 'hi' } });
      expect(answer.status, `${url} → ${JSON.stringify(answer.json)}`).toBe(400);
      expect(errorOf(answer).code).toBe('INVALID_INPUT');
    }
    expect(served.stored()).toEqual(before);
  });

  it('routes - bad query parameters are refused naming the parameter; nothing is stored', async () => {
    const before = served.stored();
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
      ['/api/v1/deliveries?older_than_ms=-1', 'older_than_ms'],
      ['/api/v1/deliveries/sent?state=lost', 'state'],
      ['/api/v1/deliveries/sent?older_than_ms=-1', 'older_than_ms'],
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
    expect(served.stored()).toEqual(before);
  });

  it('routes - unknown ids and another session’s thread are refused on every route that names one; nothing is stored', async () => {
    const before = served.stored();
    const threadRoutes = ROUTES.filter((route) => route.path.includes('{thread}'));
    expect(threadRoutes.length).toBeGreaterThanOrEqual(9);
    for (const route of threadRoutes) {
      const body = VALID_BODIES[key(route)];
      const method = route.method.toUpperCase();
      const unknown = await call(method, fill(route.path, { thread: 'no-such-thread' }), { token: alice, ...(body ? { body } : {}) });
      expect(unknown.status, `${key(route)} on an unknown thread → ${JSON.stringify(unknown.json)}`).toBe(404);
      expect(errorOf(unknown).code).toBe('NOT_FOUND');
      // Another session's thread answers exactly as a thread that does not exist: nothing tells it exists.
      const unknownId = await call(method, fill(route.path, { thread: UNKNOWN_ID }), { token: alice, ...(body ? { body } : {}) });
      const foreign = await call(method, fill(route.path, { thread: foreignThread }), { token: alice, ...(body ? { body } : {}) });
      expect(foreign.status, `${key(route)} on another session's thread → ${JSON.stringify(foreign.json)}`).toBe(404);
      expect(errorOf(foreign)).toMatchObject({ code: 'NOT_FOUND', field: expect.stringMatching(/^(thread|parent)$/) });
      expect(JSON.stringify(foreign.json).replace(foreignThread, '<id>'), key(route)).toBe(JSON.stringify(unknownId.json).replace(UNKNOWN_ID, '<id>'));
    }
    const stream = await call('GET', `/api/v1/stream?thread=${foreignThread}`, { token: alice });
    expect(stream.status).toBe(404);
    expect(errorOf(stream)).toMatchObject({ code: 'NOT_FOUND', field: 'thread' });
    const others: Array<[string, string, { token: string; body?: unknown }, number, string]> = [
      ['POST', '/api/v1/requests/no-such-request/responses', { token: alice, body: { status: 'Accepted' } }, 404, 'NOT_FOUND'],
      ['POST', '/api/v1/dm', { token: alice, body: { to: 'nobody', text: 'hi' } }, 404, 'NOT_FOUND'],
      ['POST', '/api/v1/dm', { token: alice, body: { to: 'carol', text: 'hi' } }, 404, 'NOT_FOUND'],
      ['POST', '/api/v1/requests', { token: alice, body: { to: 'nobody', intent: 'review' } }, 404, 'NOT_FOUND'],
      ['POST', '/api/v1/inbox/ack', { token: alice, body: { ids: ['01JZZZZZZZZZZZZZZZZZZZZZZZ'] } }, 404, 'NOT_FOUND'],
      ['POST', '/api/v1/participants/nobody/tokens/rotate', { token: served.hub.adminToken(), body: { session: 'proj' } }, 404, 'NOT_FOUND'],
      ['POST', '/api/v1/participants/nobody/tokens/run', { token: served.hub.adminToken(), body: { session: 'proj' } }, 404, 'NOT_FOUND'],
      ['POST', '/api/v1/threads/general/controls', { token: alice, body: { mute: { targets: ['nobody'] } } }, 404, 'NOT_FOUND'],
    ];
    for (const [method, url, options, status, code] of others) {
      const answer = await call(method, url, options);
      expect(answer.status, `${method} ${url} ${JSON.stringify(options.body)} → ${JSON.stringify(answer.json)}`).toBe(status);
      expect(errorOf(answer).code).toBe(code);
    }
    expect(served.stored()).toEqual(before);
  });

  it('routes - every route answers 2xx to a valid call with valid credentials', async () => {
    const answered = new Set<string>();
    const ok = async (method: string, template: string, params: Parameters<typeof fill>[1], options: Parameters<typeof call>[2] = {}): Promise<Record<string, unknown>> => {
      const answer = await call(method, fill(template, params), options);
      expect(answer.status, `${method} ${template} → ${JSON.stringify(answer.json)}`).toBeGreaterThanOrEqual(200);
      expect(answer.status, `${method} ${template} → ${JSON.stringify(answer.json)}`).toBeLessThan(300);
      answered.add(`${method} ${template}`);
      return (typeof answer.json === 'object' ? answer.json : { text: answer.json }) as Record<string, unknown>;
    };
    const admin = { token: served.hub.adminToken() };
    const asAlice = { token: alice };
    const asBob = { token: bob };
    await ok('GET', '/healthz', {});
    expect(await ok('POST', '/hub-proof', {}, { body: { nonce: 'N'.repeat(43) } })).toEqual({ key: expect.stringMatching(/^ed25519:/), signature: expect.any(String) });
    const page = await fetch(`${served.hub.url}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<div id="app">');
    answered.add('GET /');
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${served.hub.url}${script}`);
    expect(asset.status).toBe(200);
    answered.add('GET /assets/*');
    expect(await ok('GET', '/api/v1/login', {})).toEqual({ passwordSet: true, signedIn: false });
    const signIn = await fetch(`${served.hub.url}/api/v1/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: PASSWORD, session: 'proj' }) });
    expect(signIn.status).toBe(200);
    answered.add('POST /api/v1/login');
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const moved = await ok('POST', '/api/v1/login/session', {}, { headers: { cookie }, body: { session: 'other' } });
    expect(moved.session).toMatchObject({ name: 'other' });
    // Moving signed the old cookie out: it no longer answers.
    expect((await call('GET', '/api/v1/whoami', { headers: { cookie } })).status).toBe(401);
    await ok('POST', '/api/v1/logout', {});
    await ok('POST', '/api/v1/participants', {}, { ...admin, body: { handle: 'erin', session: 'proj' } });
    const rotated = await ok('POST', '/api/v1/participants/{handle}/tokens/rotate', { handle: 'erin' }, { ...admin, body: { session: 'proj' } });
    expect(await ok('POST', '/api/v1/participants/tokens/revoke', {}, { ...admin, body: { token: rotated.token } })).toEqual({ revoked: true });
    const run = await ok('POST', '/api/v1/participants/{handle}/tokens/run', { handle: 'erin' }, { ...admin, body: { session: 'proj' } });
    expect(run).toMatchObject({ handle: 'erin', session: 'proj', token: expect.stringMatching(/^pt_/) });
    expect(await call('GET', '/api/v1/whoami', { token: run.token as string })).toMatchObject({ status: 200, json: { participant: { handle: 'erin' } } });
    expect(await ok('POST', '/api/v1/participants/tokens/revoke', {}, { ...admin, body: { token: run.token } })).toEqual({ revoked: true });
    const running = await ok('GET', '/api/v1/hub', {}, admin);
    expect(running).toMatchObject({ pid: expect.any(Number), uptimeSeconds: expect.any(Number), connected: expect.any(Array) });
    expect(await ok('GET', '/api/v1/hub/config', {}, admin)).toMatchObject({ pid: running.pid, config: { retention: { messages: expect.any(Number) }, webui: { passwordSet: expect.any(Boolean) } } });
    await ok('GET', '/api/v1/openapi.json', {}, asAlice);
    await ok('GET', '/api/v1/whoami', {}, asAlice);
    // Local mode: the admin token sets erin's access, and an admin participant (alice) sets it again; the list shows it.
    expect(await ok('PUT', '/api/v1/participants/{handle}/access', { handle: 'erin' }, { ...admin, body: { access: 'observer' } })).toMatchObject({ participant: { handle: 'erin' }, access: 'observer' });
    expect(await ok('PUT', '/api/v1/participants/{handle}/access', { handle: 'erin' }, { ...asAlice, body: { access: 'member' } })).toMatchObject({ access: 'member' });
    const listed = await ok('GET', '/api/v1/participants', {}, asAlice);
    expect((listed.participants as Array<{ handle: string }>).map((p) => p.handle)).toEqual(expect.arrayContaining(['alice', 'bob', 'erin']));
    expect(listed.participants).toEqual(expect.arrayContaining([expect.objectContaining({ handle: 'erin', access: 'member' }), expect.objectContaining({ handle: 'bob', access: 'operator' })]));
    // Only the caller's own sessions: "other" (carol's) is not listed to alice.
    const sessions = await ok('GET', '/api/v1/sessions', {}, asAlice);
    expect((sessions.sessions as Array<{ name: string }>).map((s) => s.name)).toEqual(['proj']);
    const profiled = await ok('PATCH', '/api/v1/profile', {}, { ...asAlice, body: { model: 'model-x', nickname: 'Al' } });
    expect(profiled.participant).toMatchObject({ handle: 'alice', profile: { kind: 'agent', model: 'model-x', nickname: 'Al', roles: [] } });
    // An agent cannot make itself a human.
    const promoted = await call('PATCH', '/api/v1/profile', { ...asAlice, body: { kind: 'human' } });
    expect(promoted.status).toBe(400);
    expect(errorOf(promoted)).toMatchObject({ code: 'INVALID_INPUT', field: 'kind' });
    const channel = await ok('POST', '/api/v1/threads', {}, { ...asAlice, body: { name: 'happy', members: ['bob'] } });
    const thread = channel.id as string;
    await ok('GET', '/api/v1/threads', {}, asAlice);
    await ok('POST', '/api/v1/threads/{thread}/rename', { thread }, { ...asAlice, body: { name: 'happy-path' } });
    // A charset parameter (UTF-8) is fine; so is text with tab, CRLF and a bidi override, stored as sent.
    const posted = await ok('POST', '/api/v1/threads/{thread}/messages', { thread }, { ...asAlice, headers: { 'content-type': 'Application/JSON; charset="UTF-8"' }, body: { text: 'hello @bob, the happy path' } });
    const pasted = 'col\tcol\r\nline two \u202Ereversed\u202C \u{1F600}';
    const pastedPost = await ok('POST', '/api/v1/threads/{thread}/messages', { thread }, { ...asAlice, body: { text: pasted } });
    const side = await ok('POST', '/api/v1/threads/{thread}/side', { thread }, { ...asAlice, body: { title: 'an aside', from_event: posted.id } });
    await ok('POST', '/api/v1/threads/{thread}/close', { thread: ((side.thread as { id?: string } | undefined)?.id ?? side.id) as string }, { ...asAlice, body: { summary: 'settled' } });
    await ok('PUT', '/api/v1/threads/{thread}/subscription', { thread }, { ...asAlice, body: { state: 'subscribed' } });
    await ok('GET', '/api/v1/threads/{thread}/new', { thread }, asBob);
    const detail = await ok('GET', '/api/v1/threads/{thread}', { thread }, asAlice);
    expect(detail.thread).toMatchObject({ id: thread, name: 'happy-path' });
    expect(await ok('POST', '/api/v1/threads/{thread}/read', { thread }, { ...asAlice, body: { up_to: posted.seq } })).toEqual({ readUpTo: posted.seq });
    const history = await ok('GET', '/api/v1/threads/{thread}/history', { thread }, asAlice);
    expect((history.events as Array<{ id: string; content: unknown }>).find((event) => event.id === pastedPost.id)?.content).toBe(pasted);
    const exported = await ok('GET', '/api/v1/threads/{thread}/export', { thread }, asAlice);
    expect(String(exported.text)).toContain('the happy path');
    await ok('POST', '/api/v1/threads/{thread}/controls', { thread }, { ...asAlice, body: { discussion: { on: true } } });
    const dm = await ok('POST', '/api/v1/dm', {}, { ...asAlice, body: { to: 'bob', text: 'a word in private' } });
    await ok('POST', '/api/v1/envelopes', {}, { ...asAlice, body: await signedByAlice(thread, 'signed with my own key') });
    const found = await call('GET', '/api/v1/search?q=happy', asAlice);
    expect(found.status).toBe(200);
    expect(JSON.stringify(found.json)).toContain('the happy path');
    answered.add('GET /api/v1/search');
    await ok('GET', '/api/v1/inbox', {}, asAlice);
    // Alice has nothing waking in her inbox: the wait returns empty at its (short) timeout.
    const waited = await call('GET', '/api/v1/inbox/wait?timeout_ms=20', asAlice);
    expect(waited.status).toBe(200);
    answered.add('GET /api/v1/inbox/wait');
    await ok('GET', '/api/v1/deliveries', {}, asBob);
    await ok('GET', '/api/v1/deliveries/sent', {}, asAlice);
    await ok('POST', '/api/v1/inbox/inject', {}, { ...asBob, body: {} });
    await ok('POST', '/api/v1/agent/hook', {}, { ...asBob, body: { event: 'prompt', session: 'client-session-1' } });
    await ok('POST', '/api/v1/inbox/ack', {}, { ...asBob, body: { ids: [dm.id] } });
    const asked = await ok('POST', '/api/v1/requests', {}, { ...asAlice, body: { to: 'bob', intent: 'review', params: { file: 'src/a.ts' } } });
    await ok('POST', '/api/v1/requests/{id}/responses', { id: asked.request_id as string }, { ...asBob, body: { status: 'Completed', result: { ok: true } } });
    await ok('GET', '/api/v1/requests/open', {}, asBob);
    await ok('PUT', '/api/v1/presence', {}, { ...asAlice, body: { state: 'thinking' } });
    await ok('GET', '/api/v1/presence', {}, asAlice);
    await ok('POST', '/api/v1/meetings/{name}/join', { name: 'standup' }, asAlice);
    await ok('POST', '/api/v1/meetings/{name}/say', { name: 'standup' }, { ...asAlice, body: { text: 'morning' } });
    await ok('POST', '/api/v1/meetings/{name}/join', { name: 'standup' }, asBob);
    await ok('GET', '/api/v1/meetings/{name}/hear', { name: 'standup' }, asBob);
    await ok('GET', '/api/v1/meetings/{name}/who', { name: 'standup' }, asBob);
    await ok('GET', '/api/v1/meetings/{name}/status', { name: 'standup' }, asBob);
    const ring = await ok('GET', '/api/v1/meetings/{name}/ring', { name: 'standup' }, asAlice);
    expect(ring).toMatchObject({ dropped: 0, messages: [expect.objectContaining({ number: 1, speaker: 'alice', content: 'morning' })] });
    await ok('GET', '/api/v1/meetings', {}, asBob);
    await ok('POST', '/api/v1/meetings/{name}/leave', { name: 'standup' }, asBob);
    // The stream answers 200 with an event stream; this client leaves at once.
    const controller = new AbortController();
    const stream = await fetch(`${served.hub.url}/api/v1/stream?thread=${thread}`, { headers: { authorization: `Bearer ${alice}` }, signal: controller.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    controller.abort();
    answered.add('GET /api/v1/stream');
    // The connection answers 200 with keep-alives only, and keeps alice present while open.
    const holding = new AbortController();
    const connection = await fetch(`${served.hub.url}/api/v1/connection`, { headers: { authorization: `Bearer ${alice}` }, signal: holding.signal });
    expect(connection.status).toBe(200);
    expect(connection.headers.get('content-type')).toContain('text/event-stream');
    holding.abort();
    answered.add('GET /api/v1/connection');
    // MCP: initialize, the session's notification stream, and its end.
    const mcpHeaders = { authorization: `Bearer ${alice}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const initialized = await fetch(`${served.hub.url}/mcp`, {
      method: 'POST',
      headers: mcpHeaders,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'routes-test', version: '1' } } }),
    });
    expect(initialized.status).toBe(200);
    expect(await initialized.json()).toMatchObject({ result: { serverInfo: { name: 'parley' } } });
    const mcpSession = initialized.headers.get('mcp-session-id')!;
    answered.add('POST /mcp');
    const notifications = new AbortController();
    const mcpStream = await fetch(`${served.hub.url}/mcp`, { headers: { ...mcpHeaders, 'mcp-session-id': mcpSession, 'mcp-protocol-version': '2025-06-18' }, signal: notifications.signal });
    expect(mcpStream.status).toBe(200);
    expect(mcpStream.headers.get('content-type')).toContain('text/event-stream');
    notifications.abort();
    answered.add('GET /mcp');
    const ended = await fetch(`${served.hub.url}/mcp`, { method: 'DELETE', headers: { ...mcpHeaders, 'mcp-session-id': mcpSession, 'mcp-protocol-version': '2025-06-18' } });
    expect(ended.status).toBe(200);
    answered.add('DELETE /mcp');
    // Last, as it ends local mode: the roster, and a new one signed by the hub's key (alice is not in it:
    // she and the others are at work, so leaving them out is confirmed).
    expect(await ok('GET', '/api/v1/hub/roster', {}, admin)).toMatchObject({ trust: { mode: 'local' }, roster: null, participants: expect.arrayContaining([expect.objectContaining({ handle: 'alice', pubkey: expect.stringMatching(/^ed25519:/) })]) });
    const hubKey = readKeyFile(hubKeyPathOf(served.home));
    const roster = signRoster({ org_id: 'acme', version: 1, timestamp: '2026-11-24T12:00:00Z', members: [{ pubkey: formatPublicKey(rawPublicKeyOf(hubKey)), role: 'admin' }], signatures: [] }, hubKey);
    expect(await ok('POST', '/api/v1/hub/roster', {}, { ...admin, body: { ...roster, confirm: true } })).toMatchObject({ accepted: { org_id: 'acme', version: 1, members: 1 }, trust: { mode: 'roster', org: 'acme', version: 1 } });
    expect([...answered].sort()).toEqual(ROUTES.map(key).sort());
  });
});
