import { fork } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Hub } from '../src/hub/hub.js';
import { openBenchHub } from './open-hub.js';
import { startHttpServer, type HttpServer } from '../src/http/server.js';
import { createSilentLogger } from '../src/util/logger.js';
import { tempDir, UNLIMITED_WRITES } from './core.js';
import type { LoadJob, RestJob, RestResult } from './load-client.js';
import type { Summary } from './stats.js';

/**
 * HTTP benchmarks: REST post round trips over keep-alive connections with 1,
 * 10 and 100 concurrent clients, and post-to-SSE delivery to 100 live
 * subscribers, each beside a bare node:http server measured in the same run
 * with the same load generator (a separate process, see load-client.ts).
 */
export type RoundTrip = RestResult;

function runLoad<T>(job: LoadJob): Promise<T> {
  const child = fork(new URL('./load-client.js', import.meta.url), { stdio: 'inherit' });
  return new Promise<T>((resolve, reject) => {
    child.once('message', (message: { ok: boolean; result?: T; error?: string }) => {
      if (message.ok) resolve(message.result as T);
      else reject(new Error(`load generator: ${message.error}`));
    });
    child.once('exit', (code) => reject(new Error(`load generator exited with code ${code}`)));
    child.send(job);
  });
}

/** The anchor: a bare node:http server that reads a JSON post and answers 201, and fans posts out to SSE clients. */
async function bareServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const streams = new Set<http.ServerResponse>();
  let seq = 0;
  const server = http.createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      streams.add(res);
      res.once('close', () => streams.delete(res));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { text: string };
      const id = ++seq;
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id, seq: id }));
      const frame = `id: ${id}\nevent: event\ndata: ${JSON.stringify({ seq: id, text: body.text })}\n\n`;
      for (const stream of streams) stream.write(frame);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function withHub<T>(prefix: string, run: (hub: Hub, server: HttpServer) => Promise<T>): Promise<T> {
  const home = tempDir(prefix);
  const hub = await openBenchHub({ home, logger: createSilentLogger(), config: UNLIMITED_WRITES });
  const server = await startHttpServer({ hub, host: '127.0.0.1', port: 0, logger: createSilentLogger() });
  try {
    return await run(hub, server);
  } finally {
    const closing = server.close();
    await hub.close();
    await closing;
    fs.rmSync(home, { recursive: true, force: true });
  }
}

const POST_TEXT = JSON.stringify({ text: 'the cache layer needs an eviction policy so we measure hit rates under load '.repeat(3) });

export async function restRoundTrips(levels: number[], totalPerLevel: number): Promise<Array<{ clients: number; hub: RoundTrip; bare: RoundTrip }>> {
  const job = (port: number, path: string, headers: Record<string, string>, clients: number, total: number): RestJob => ({
    kind: 'rest',
    port,
    path,
    headers,
    body: POST_TEXT,
    clients,
    total,
    // The load generator warms in the process that measures: a fresh process's first thousand requests cost it several times more.
    warmup: Math.min(2000, total),
  });
  // The anchor runs first, alone: the hub's search indexer must not be busy beside it.
  const bareRuns = new Map<number, RoundTrip>();
  const bare = await bareServer();
  try {
    for (const clients of levels) {
      const anchor = job(bare.port, '/', { 'content-type': 'application/json' }, clients, totalPerLevel);
      bareRuns.set(clients, await runLoad<RoundTrip>(anchor));
    }
  } finally {
    await bare.close();
  }
  return withHub('parley-bench-http-', async (hub, server) => {
    await hub.join({ handle: 'poster', session: 'bench' });
    const token = await hub.issueToken('poster', 'bench');
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const results = [];
    for (const clients of levels) {
      const posting = job(server.port, '/api/v1/threads/general/messages', headers, clients, totalPerLevel);
      const hubRun = await runLoad<RoundTrip>(posting);
      results.push({ clients, hub: hubRun, bare: bareRuns.get(clients) as RoundTrip });
    }
    return results;
  });
}

/** Time from sending a REST post to its arrival on each of `subscribers` SSE streams. */
export async function sseDelivery(subscribers: number, posts: number): Promise<Summary> {
  return withHub('parley-bench-sse-', async (hub, server) => {
    await hub.join({ handle: 'poster', session: 'bench' });
    const posterToken = await hub.issueToken('poster', 'bench');
    const streams = [];
    for (let i = 0; i < subscribers; i++) {
      await hub.join({ handle: `reader-${i}`, session: 'bench' });
      const token = await hub.issueToken(`reader-${i}`, 'bench');
      streams.push({ path: '/api/v1/stream?events_only=true&thread=general', headers: { authorization: `Bearer ${token}` } });
    }
    return runLoad<Summary>({
      kind: 'sse',
      port: server.port,
      streams,
      post: { path: '/api/v1/threads/general/messages', headers: { authorization: `Bearer ${posterToken}`, 'content-type': 'application/json' } },
      posts,
    });
  });
}

/** The same measurement against the bare node:http fan-out. */
export async function bareSseDelivery(subscribers: number, posts: number): Promise<Summary> {
  const bare = await bareServer();
  try {
    return await runLoad<Summary>({
      kind: 'sse',
      port: bare.port,
      streams: Array.from({ length: subscribers }, () => ({ path: '/', headers: {} })),
      post: { path: '/', headers: { 'content-type': 'application/json' } },
      posts,
    });
  } finally {
    await bare.close();
  }
}
