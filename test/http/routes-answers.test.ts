import { generateKeyPair } from '@libp2p/crypto/keys';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/http/openapi.js';
import { hubKeyPathOf, readKeyFile } from '../../src/trust/key-files.js';
import { formatPublicKey, rawPublicKeyOf } from '../../src/trust/node-id.js';
import { signRoster } from '../../src/trust/roster.js';
import { errorOf, PASSWORD, routeKey, routesHubForFile } from './routes-hub.js';

/**
 * The REST contract, route by route, against the real hub in a child process:
 * every route answers 2xx to a valid call with valid credentials. The route
 * list is the one the OpenAPI document is built from, so a new route is
 * covered here or this test fails.
 */
const h = routesHubForFile();
const { served, call, fill } = h;

describe('http routes: valid calls', () => {
  it('routes - every route answers 2xx to a valid call with valid credentials', async () => {
    const { alice, bob } = h;
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
    // No peer listener on this hub: it says who it is, listening nowhere.
    expect(await ok('GET', '/api/v1/hub/peers/self', {}, admin)).toMatchObject({ key: expect.stringMatching(/^ed25519:/), id: expect.stringMatching(/^h_/), addrs: [], participants: expect.arrayContaining([expect.objectContaining({ handle: 'alice' })]) });
    // A hub to link to (nothing listens there): kept, listed, forgotten.
    const peerAddr = `/ip4/127.0.0.1/tcp/1/p2p/${peerIdFromPrivateKey(await generateKeyPair('Ed25519')).toString()}`;
    const kept = await ok('POST', '/api/v1/hub/peers', {}, { ...admin, body: { addr: peerAddr } });
    expect(kept).toMatchObject({ added: true, peer: { addrs: [peerAddr], configured: true } });
    // Cut for a minute (a partition on purpose), then lifted.
    const peerKey = (kept.peer as { key: string }).key;
    expect(await ok('POST', '/api/v1/hub/peers/{peer}/block', { peer: peerKey }, { ...admin, body: { seconds: 60 } })).toMatchObject({ peer: { key: peerKey, state: 'refused' }, until: expect.any(String) });
    expect(await ok('DELETE', '/api/v1/hub/peers/{peer}/block', { peer: peerKey }, admin)).toEqual({ unblocked: true });
    expect(await ok('GET', '/api/v1/hub/peers', {}, admin)).toMatchObject({ peers: [expect.objectContaining({ addrs: [peerAddr] })] });
    // A participant sees the same hub without its addresses.
    const hubs = (await ok('GET', '/api/v1/linked-hubs', {}, asAlice)).hubs as Array<Record<string, unknown>>;
    expect(hubs).toEqual([expect.objectContaining({ key: expect.stringMatching(/^ed25519:/), name: '', state: expect.stringMatching(/^(connecting|offline)$/), queued: expect.any(Number), lagSeconds: expect.any(Number), drops: {} })]);
    expect(hubs[0]).not.toHaveProperty('addrs');
    expect(await ok('DELETE', '/api/v1/hub/peers/{peer}', { peer: peerAddr }, admin)).toEqual({ removed: [peerAddr] });
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
    await ok('POST', '/api/v1/envelopes', {}, { ...asAlice, body: await h.signedByAlice(thread, 'signed with my own key') });
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
    expect([...answered].sort()).toEqual(ROUTES.map(routeKey).sort());
  });
});
