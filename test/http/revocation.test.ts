import { describe, expect, it } from 'vitest';
import type { HttpServer } from '../../src/http/server.js';
import { testHubsClosedAfterEach, type TestHub } from '../helpers/hub.js';
import { connectHttp } from '../helpers/mcp.js';
import { openStream } from '../helpers/sse.js';

/**
 * Revoking a credential (token rotation, sign-out) ends at once everything it
 * opened: live streams, MCP sessions with their pending calls, and long-polls.
 * Waits here are long (60 s), so an end within seconds can only be the revocation.
 */
const hubs = testHubsClosedAfterEach();

const LONG_WAIT_MS = 60_000;

async function start(): Promise<{ t: TestHub; server: HttpServer; url: string; alice: Awaited<ReturnType<TestHub['hub']['join']>>; bobToken: string }> {
  const t = await hubs.open({ config: { webui: { password: 'correct horse' }, inbox: { maxWaitTimeoutMs: 120_000 }, mcp: { waitTimeoutMs: 120_000 } } });
  const alice = await t.hub.join({ handle: 'alice', session: 's' });
  await t.hub.join({ handle: 'bob', session: 's' });
  const bobToken = await t.hub.issueToken('bob', 's');
  const server = await hubs.serve(t);
  return { t, server, url: server.url, alice, bobToken };
}

describe('revoked credentials', () => {
  it('revocation - rotating a token ends its live stream, its MCP session (and the call pending in it) and its long-poll, at once', async () => {
    const { t, server, url, alice, bobToken } = await start();
    const stream = await openStream(`${url}/api/v1/stream?inbox=true&events_only=true`, bobToken);
    await alice.dm({ to: 'bob', text: 'before rotation' });
    expect(JSON.parse((await stream.next()).data)).toMatchObject({ content: 'before rotation' });
    // Bob takes the DM, so the waits below have nothing to return at once.
    const taken = await fetch(`${url}/api/v1/inbox`, { headers: { authorization: `Bearer ${bobToken}` } });
    expect(JSON.stringify(await taken.json())).toContain('before rotation');

    const mcp = await connectHttp(url, bobToken);
    const pendingMcpWait = mcp.call('wait', { timeout_ms: LONG_WAIT_MS }).then(
      (result) => ({ ended: 'answered' as const, result }),
      (error: unknown) => ({ ended: 'failed' as const, error: String(error) }),
    );
    const pendingRestWait = fetch(`${url}/api/v1/inbox/wait?timeout_ms=${LONG_WAIT_MS}`, { headers: { authorization: `Bearer ${bobToken}` } });
    // Both waits are registered with the hub before the rotation.
    await expect.poll(() => t.hub.stats().liveListeners, { timeout: 5000 }).toBeGreaterThanOrEqual(3);
    expect(server.mcp.size).toBe(1);

    const started = Date.now();
    const newToken = await t.hub.rotateToken('bob', 's');

    const errorFrame = await stream.next();
    expect(errorFrame.event).toBe('error');
    expect(JSON.parse(errorFrame.data)).toMatchObject({ error: { code: 'UNAUTHORIZED', message: expect.stringContaining('revoked') } });
    await expect(stream.next()).rejects.toThrow('stream ended');

    const rest = await pendingRestWait;
    expect(rest.status).toBe(401);
    expect(await rest.json()).toMatchObject({ error: { code: 'UNAUTHORIZED', message: expect.stringContaining('revoked') } });

    const mcpEnd = await pendingMcpWait;
    expect(mcpEnd.ended).toBe('failed');
    expect(server.mcp.size).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);

    // Nothing more reaches the old credential; the new token works.
    await alice.dm({ to: 'bob', text: 'after rotation' });
    const old = await fetch(`${url}/api/v1/inbox?peek=true`, { headers: { authorization: `Bearer ${bobToken}` } });
    expect(old.status).toBe(401);
    const fresh = await fetch(`${url}/api/v1/inbox?peek=true`, { headers: { authorization: `Bearer ${newToken}` } });
    expect(fresh.status).toBe(200);
    expect(JSON.stringify(await fresh.json())).toContain('after rotation');
    expect(t.hub.stats().liveListeners).toBe(0);
  });

  it('revocation - signing out ends the streams that browser\'s cookie opened, and only those', async () => {
    const { url, alice, bobToken } = await start();
    const login = await fetch(`${url}/api/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: url },
      body: JSON.stringify({ password: 'correct horse' }),
    });
    expect(login.status).toBe(200);
    const cookie = /parley_session=[^;]+/.exec(login.headers.get('set-cookie') ?? '')![0];
    const response = await fetch(`${url}/api/v1/stream?events_only=true`, { headers: { cookie } });
    expect(response.status).toBe(200);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    const bobStream = await openStream(`${url}/api/v1/stream?events_only=true`, bobToken);

    const logout = await fetch(`${url}/api/v1/logout`, { method: 'POST', headers: { cookie, origin: url, 'content-type': 'application/json' }, body: '{}' });
    expect(logout.status).toBe(200);
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    expect(text).toContain('event: error');
    expect(text).toContain('UNAUTHORIZED');

    // Another participant's stream is untouched.
    await alice.post({ thread: 'general', text: 'still here' });
    expect(JSON.parse((await bobStream.next()).data)).toMatchObject({ content: 'still here' });
    bobStream.drop();
  });
});
