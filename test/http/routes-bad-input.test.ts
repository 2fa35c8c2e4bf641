import http from 'node:http';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/http/openapi.js';
import { errorOf, MAX_BODY_BYTES, routeKey, routesHubForFile, UNKNOWN_ID, VALID_BODIES, type Answer } from './routes-hub.js';

/**
 * The REST contract, route by route, against the real hub in a child process:
 * every route that takes input refuses bad input with the error map's status,
 * names the field, and stores nothing. The route list is the one the OpenAPI
 * document is built from, so a new route is covered here or these tests fail.
 */
const h = routesHubForFile();
const { served, call, fill, credentialsFor } = h;

describe('http routes: bad input', () => {
  it('routes - malformed JSON, wrong shapes, unknown and wrongly typed fields and oversized bodies are refused on every route that takes a body; nothing is stored', async () => {
    const { alice } = h;
    const before = served.stored();
    const withBody = ROUTES.filter((route) => route.body);
    expect(Object.keys(VALID_BODIES).sort()).toEqual(withBody.map(routeKey).sort());
    for (const route of withBody) {
      const method = route.method.toUpperCase();
      const where = fill(route.path);
      const auth = credentialsFor(route);
      const valid = VALID_BODIES[routeKey(route)]!;
      const refused = async (what: string, body: unknown, status: number, code: string, field?: (f: string | undefined, message: string) => boolean) => {
        const answer = await call(method, where, { ...auth, body });
        expect(answer.status, `${routeKey(route)}: ${what} → ${JSON.stringify(answer.json)}`).toBe(status);
        const error = errorOf(answer);
        expect(error.code, `${routeKey(route)}: ${what}`).toBe(code);
        if (field) expect(field(error.field, error.message), `${routeKey(route)}: ${what} named ${error.field}: ${error.message}`).toBe(true);
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
    const { alice, bob, openRequest } = h;
    const before = served.stored();
    const withBody = ROUTES.filter((route) => route.body);
    const utf8 = (text: string) => new TextEncoder().encode(text);
    const bytes = (...parts: Array<string | number[]>) => Buffer.concat(parts.map((part) => (typeof part === 'string' ? utf8(part) : Buffer.from(part))));
    for (const route of withBody) {
      const method = route.method.toUpperCase();
      const where = fill(route.path);
      const auth = credentialsFor(route);
      const valid = VALID_BODIES[routeKey(route)]!;
      const refused = async (what: string, options: Omit<Parameters<typeof call>[2], 'token'>, status: number, code: string, field: string, message?: RegExp) => {
        const answer = await call(method, where, { ...auth, ...options });
        expect(answer.status, `${routeKey(route)}: ${what} → ${JSON.stringify(answer.json)}`).toBe(status);
        expect(errorOf(answer), `${routeKey(route)}: ${what}`).toMatchObject({ code, field });
        if (message) expect(errorOf(answer).message, `${routeKey(route)}: ${what}`).toMatch(message);
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
    const { alice } = h;
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
      expect(covered, `${routeKey(route)} has a bad-query case`).toBe(true);
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
    const { alice, foreignThread } = h;
    const before = served.stored();
    const threadRoutes = ROUTES.filter((route) => route.path.includes('{thread}'));
    expect(threadRoutes.length).toBeGreaterThanOrEqual(9);
    for (const route of threadRoutes) {
      const body = VALID_BODIES[routeKey(route)];
      const method = route.method.toUpperCase();
      const unknown = await call(method, fill(route.path, { thread: 'no-such-thread' }), { token: alice, ...(body ? { body } : {}) });
      expect(unknown.status, `${routeKey(route)} on an unknown thread → ${JSON.stringify(unknown.json)}`).toBe(404);
      expect(errorOf(unknown).code).toBe('NOT_FOUND');
      // Another session's thread answers exactly as a thread that does not exist: nothing tells it exists.
      const unknownId = await call(method, fill(route.path, { thread: UNKNOWN_ID }), { token: alice, ...(body ? { body } : {}) });
      const foreign = await call(method, fill(route.path, { thread: foreignThread }), { token: alice, ...(body ? { body } : {}) });
      expect(foreign.status, `${routeKey(route)} on another session's thread → ${JSON.stringify(foreign.json)}`).toBe(404);
      expect(errorOf(foreign)).toMatchObject({ code: 'NOT_FOUND', field: expect.stringMatching(/^(thread|parent)$/) });
      expect(JSON.stringify(foreign.json).replace(foreignThread, '<id>'), routeKey(route)).toBe(JSON.stringify(unknownId.json).replace(UNKNOWN_ID, '<id>'));
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
});
