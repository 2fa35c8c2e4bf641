import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { testHubsClosedAfterEach } from '../helpers/hub.js';

const hubs = testHubsClosedAfterEach();
const sockets: net.Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});

describe('http server', () => {
  it('server - closing does not wait for spare connections, finished keep-alive requests or dropped streams', async () => {
    const t = await hubs.open();
    await t.hub.join({ handle: 'bob', session: 's' });
    const token = await t.hub.issueToken('bob', 's');
    // A grace far beyond this test's timeout: only connections that really have a request in flight may hold the close.
    const server = await hubs.serve(t, { closeGraceMs: 600_000 });
    const headers = { authorization: `Bearer ${token}` };

    const stream = new AbortController();
    const live = await fetch(`${server.url}/api/v1/stream`, { headers, signal: stream.signal });
    expect(live.status).toBe(200);
    stream.abort();
    const whoami = await fetch(`${server.url}/api/v1/whoami`, { headers });
    expect(await whoami.json()).toMatchObject({ participant: { handle: 'bob' } });
    // A client's spare connection: connected, never used.
    const spare = net.connect(server.port, '127.0.0.1');
    sockets.push(spare);
    await new Promise<void>((resolve) => spare.once('connect', () => resolve()));
    const spareClosed = new Promise<void>((resolve) => spare.once('close', () => resolve()));

    const closing = server.close();
    await t.hub.close();
    await closing;
    await spareClosed;
    expect(spare.destroyed).toBe(true);
  }, 15_000);

  it('server - a long-poll in flight at close gets an answer (503 HUB_CLOSED) before the server stops', async () => {
    const t = await hubs.open();
    await t.hub.join({ handle: 'bob', session: 's' });
    const token = await t.hub.issueToken('bob', 's');
    const server = await hubs.serve(t);
    // A long-poll is in flight when the server starts closing; the hub's shutdown ends it with an answer.
    const waiting = fetch(`${server.url}/api/v1/inbox/wait?timeout_ms=60000`, { headers: { authorization: `Bearer ${token}` } });
    await expect.poll(() => t.hub.stats().liveListeners).toBeGreaterThan(0);
    const closing = server.close();
    await t.hub.close();
    const answer = await waiting;
    await closing;
    // Answered, not cut: the client learns the hub is going and retries against the next one.
    expect(answer.status).toBe(503);
    expect(await answer.json()).toMatchObject({ error: { code: 'HUB_CLOSED' } });
  }, 15_000);
});
