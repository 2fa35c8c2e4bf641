import path from 'node:path';
import { beforeAll, expect } from 'vitest';
import type { ROUTES } from '../../src/http/openapi.js';
import { readKeyFile } from '../../src/trust/key-files.js';
import { handedIn, messageFields } from '../helpers/envelope.js';
import { joinOver } from '../helpers/serve.js';
import { servedHubForFile, type ServedHub } from '../helpers/served-hub.js';

/**
 * What the REST contract tests share: a request over real HTTP, the route
 * list's paths filled in, a valid body per route, and the hub they call.
 */
export const PASSWORD = 'correct horse battery staple';
/** A well-formed thread id that names no thread. */
export const UNKNOWN_ID = '01JZZZZZZZZZZZZZZZZZZZZZZZ';
export const MAX_BODY_BYTES = 4096;

export type Route = (typeof ROUTES)[number];

export interface Answer {
  status: number;
  json: unknown;
}

export interface CallOptions {
  token?: string;
  headers?: Record<string, string>;
  body?: unknown;
  noContentType?: boolean;
}

/** One request over real HTTP to `base`; `body` is sent as JSON unless it is already a string or bytes (sent as they are). */
export async function callAt(base: string, method: string, route: string, options: CallOptions = {}): Promise<Answer> {
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

export function errorOf(answer: Answer): { code: string; message: string; field?: string } {
  const error = (answer.json as { error?: { code: string; message: string; field?: string } }).error;
  if (!error) throw new Error(`expected an error body, got ${JSON.stringify(answer.json)}`);
  return error;
}

/** The route's path with its parameters filled in. */
export function fillRoute(route: string, values: Partial<Record<'thread' | 'handle' | 'id' | 'name' | 'peer', string>> = {}): string {
  return route
    .replace('{peer}', encodeURIComponent(values.peer ?? `ed25519:${'A'.repeat(43)}`))
    .replace('{thread}', values.thread ?? 'general')
    .replace('{handle}', values.handle ?? 'alice')
    .replace('{id}', values.id ?? 'no-such-request')
    .replace('{name}', values.name ?? 'standup');
}

export const routeKey = (route: { method: string; path: string }): string => `${route.method.toUpperCase()} ${route.path}`;

export const VALID_BODIES: Record<string, Record<string, unknown>> = {
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
  // A hub's address (nothing listens there).
  'POST /api/v1/hub/peers': { addr: '/ip4/127.0.0.1/tcp/1/p2p/12D3KooWRawPbxPtP1eZaJpumGnyWX2DcUyd3RQnydr3eAto4Az7' },
  'POST /api/v1/hub/peers/{peer}/block': { seconds: 60 },
  // A roster of the right shape (unsigned: the bad-input cases are refused before any signature is checked).
  'POST /api/v1/hub/roster': { org_id: 'acme', version: 1, timestamp: '2026-11-24T12:00:00Z', members: [{ pubkey: `ed25519:${'A'.repeat(43)}`, role: 'admin' }] },
};

/** The hub a route test file calls, and who calls it; the tokens and ids are there from beforeAll on. */
export interface RoutesHub {
  served: ServedHub;
  /** @alice's token: an admin, she calls the steering and access routes too. */
  readonly alice: string;
  readonly bob: string;
  /** A channel of @carol's in another session. */
  readonly foreignThread: string;
  /** A request from @alice to @bob, left open. */
  readonly openRequest: string;
  call(method: string, route: string, options?: CallOptions): Promise<Answer>;
  /** fillRoute, with the open request as {id}. */
  fill(route: string, values?: Partial<Record<'thread' | 'handle' | 'id' | 'name' | 'peer', string>>): string;
  /** Whose credentials a route takes, to get past authentication to the input checks. */
  credentialsFor(route: Route): { token?: string };
  /** A message signed with alice's own key (held in the home), as a client holding its key hands it in. */
  signedByAlice(thread: string, text: string): Promise<{ envelope: string; sig: string }>;
}

/** `parley serve` for a route test file, with the hub password and a small body limit; @alice and @bob in "proj", @carol in "other". */
export function routesHubForFile(): RoutesHub {
  const served = servedHubForFile({
    config: { trust: { access: { alice: 'admin' } } },
    env: { PARLEY_WEBUI_PASSWORD: PASSWORD, PARLEY_SERVER_MAX_BODY_BYTES: String(MAX_BODY_BYTES) },
  });
  const ids = { alice: '', bob: '', foreignThread: '', openRequest: '' };
  const call = (method: string, route: string, options: CallOptions = {}): Promise<Answer> => callAt(served.hub.url, method, route, options);
  beforeAll(async () => {
    ids.alice = await joinOver(served.hub, { handle: 'alice', session: 'proj' });
    ids.bob = await joinOver(served.hub, { handle: 'bob', session: 'proj' });
    const carol = await joinOver(served.hub, { handle: 'carol', session: 'other' });
    const hidden = await call('POST', '/api/v1/threads', { token: carol, body: { name: 'hidden' } });
    ids.foreignThread = (hidden.json as { id: string }).id;
    const asked = await call('POST', '/api/v1/requests', { token: ids.alice, body: { to: 'bob', intent: 'review' } });
    ids.openRequest = (asked.json as { request_id: string }).request_id;
    expect(ids.foreignThread).toMatch(/\S/);
    expect(ids.openRequest).toMatch(/\S/);
    expect(ids.bob).toMatch(/^pt_/);
  });
  return {
    served,
    get alice() {
      return ids.alice;
    },
    get bob() {
      return ids.bob;
    },
    get foreignThread() {
      return ids.foreignThread;
    },
    get openRequest() {
      return ids.openRequest;
    },
    call,
    fill: (route, values = {}) => fillRoute(route, { id: ids.openRequest || 'no-such-request', ...values }),
    credentialsFor: (route) => (route.auth === 'none' ? {} : { token: route.auth === 'admin' ? served.hub.adminToken() : ids.alice }),
    async signedByAlice(thread, text) {
      const me = (await call('GET', '/api/v1/whoami', { token: ids.alice })).json as { participant: { id: string; publicKey: string } };
      const key = readKeyFile(path.join(served.home, 'keys', 'participants', `${me.participant.id}.key`));
      return handedIn(messageFields({ id: '01KAPM5S0000000000000000R1', from: Buffer.from(me.participant.publicKey, 'base64'), thread, content: text }), key);
    },
  };
}
