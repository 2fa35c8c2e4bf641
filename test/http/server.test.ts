import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpServer, type HttpServer } from '../../src/http/server.js';
import { createSilentLogger } from '../../src/util/logger.js';
import { closeServed, openTestHub, type TestHub } from '../helpers/hub.js';

let t: TestHub | undefined;
let server: HttpServer | undefined;
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await closeServed(t, server);
  server = undefined;
  t = undefined;
});

describe('http server', () => {
  it('server - closing does not wait for spare connections, finished keep-alive requests or dropped streams', async () => {
    t = await openTestHub();
    await t.hub.join({ handle: 'bob', session: 's' });
    const token = await t.hub.issueToken('bob', 's');
    // A grace far beyond this test's timeout: only connections that really have a request in flight may hold the close.
    server = await startHttpServer({ hub: t.hub, host: '127.0.0.1', port: 0, logger: createSilentLogger(), closeGraceMs: 600_000 });
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
    server = undefined;
  }, 15_000);

  it('server - a long-poll in flight at close gets an answer (503 HUB_CLOSED) before the server stops', async () => {
    t = await openTestHub();
    await t.hub.join({ handle: 'bob', session: 's' });
    const token = await t.hub.issueToken('bob', 's');
    server = await startHttpServer({ hub: t.hub, host: '127.0.0.1', port: 0, logger: createSilentLogger() });
    // A long-poll is in flight when the server starts closing; the hub's shutdown ends it with an answer.
    const waiting = fetch(`${server.url}/api/v1/inbox/wait?timeout_ms=60000`, { headers: { authorization: `Bearer ${token}` } });
    await expect.poll(() => t!.hub.stats().liveListeners).toBeGreaterThan(0);
    const closing = server.close();
    await t.hub.close();
    const answer = await waiting;
    await closing;
    // Answered, not cut: the client learns the hub is going and retries against the next one.
    expect(answer.status).toBe(503);
    expect(await answer.json()).toMatchObject({ error: { code: 'HUB_CLOSED' } });
    server = undefined;
  }, 15_000);
});
