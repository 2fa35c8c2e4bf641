import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { openHub } from '../src/hub/hub.js';
import { startHttpServer } from '../src/http/server.js';
import { createSilentLogger } from '../src/util/logger.js';
import { tempDir } from './core.js';
import { summarize, type Summary } from './stats.js';

/**
 * HTTP benchmarks: REST post round trips over keep-alive connections with 1,
 * 10 and 100 concurrent clients, and post-to-SSE delivery to 100 live
 * subscribers, each beside a bare node:http anchor measured in the same run.
 */
export interface RoundTrip {
  clients: number;
  requests: number;
  perSecond: number;
  latency: Summary;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

function request(port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent, headers: { ...headers, ...(body ? { 'content-length': Buffer.byteLength(body) } : {}) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

async function drive(clients: number, total: number, once: () => Promise<number>): Promise<RoundTrip> {
  const samples: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (;;) {
        if (next++ >= total) return;
        const t0 = performance.now();
        const status = await once();
        if (status >= 300) throw new Error(`request failed with ${status}`);
        samples.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  return { clients, requests: total, perSecond: total / seconds, latency: summarize(samples) };
}

/** A bare node:http server answering a JSON body: the anchor. */
async function bareServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export async function restRoundTrips(levels: number[], totalPerLevel: number): Promise<Array<{ clients: number; hub: RoundTrip; bare: RoundTrip }>> {
  const home = tempDir('parley-bench-http-');
  const hub = await openHub({ home, logger: createSilentLogger() });
  const server = await startHttpServer({ hub, host: '127.0.0.1', port: 0, logger: createSilentLogger() });
  const bare = await bareServer();
  try {
    await hub.join({ handle: 'poster', session: 'bench' });
    const token = await hub.issueToken('poster', 'bench');
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const body = JSON.stringify({ text: 'the cache layer needs an eviction policy so we measure hit rates under load '.repeat(3) });
    const results = [];
    for (const clients of levels) {
      await drive(clients, Math.min(500, totalPerLevel), () => request(server.port, 'POST', '/api/v1/threads/general/messages', headers, body)); // warm-up
      const hubRun = await drive(clients, totalPerLevel, () => request(server.port, 'POST', '/api/v1/threads/general/messages', headers, body));
      const bareRun = await drive(clients, totalPerLevel, () => request(bare.port, 'POST', '/', { 'content-type': 'application/json' }, body));
      results.push({ clients, hub: hubRun, bare: bareRun });
    }
    return results;
  } finally {
    await bare.close();
    const closing = server.close();
    await hub.close();
    await closing;
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** Time from a REST post to its arrival on each of `subscribers` SSE streams. */
export async function sseDelivery(subscribers: number, posts: number): Promise<Summary> {
  const home = tempDir('parley-bench-sse-');
  const hub = await openHub({ home, logger: createSilentLogger() });
  const server = await startHttpServer({ hub, host: '127.0.0.1', port: 0, logger: createSilentLogger() });
  const controllers: AbortController[] = [];
  try {
    await hub.join({ handle: 'poster', session: 'bench' });
    const posterToken = await hub.issueToken('poster', 'bench');
    const sentAt = new Map<string, number>();
    const samples: number[] = [];
    let pending = 0;
    let wake: (() => void) | undefined;
    const ready: Array<Promise<void>> = [];
    for (let i = 0; i < subscribers; i++) {
      await hub.join({ handle: `reader-${i}`, session: 'bench' });
      const token = await hub.issueToken(`reader-${i}`, 'bench');
      const controller = new AbortController();
      controllers.push(controller);
      ready.push(
        new Promise<void>((resolve) => {
          const req = http.get(
            { host: '127.0.0.1', port: server.port, path: '/api/v1/stream?events_only=true&thread=general', headers: { authorization: `Bearer ${token}` }, signal: controller.signal },
            (res) => {
              resolve();
              let buffer = '';
              res.setEncoding('utf8');
              res.on('data', (chunk: string) => {
                buffer += chunk;
                for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
                  const frame = buffer.slice(0, end);
                  buffer = buffer.slice(end + 2);
                  const data = /^data: ?(.*)$/m.exec(frame)?.[1];
                  if (!data) continue;
                  const text = (JSON.parse(data) as { content: unknown }).content;
                  const start = typeof text === 'string' ? sentAt.get(text) : undefined;
                  if (start === undefined) continue;
                  samples.push(performance.now() - start);
                  if (--pending === 0) wake?.();
                }
              });
            },
          );
          req.on('error', () => undefined);
        }),
      );
    }
    await Promise.all(ready);
    const headers = { authorization: `Bearer ${posterToken}`, 'content-type': 'application/json' };
    for (let i = 0; i < posts; i++) {
      const text = `sse ${i}`;
      const delivered = new Promise<void>((resolve) => (wake = resolve));
      pending = subscribers;
      sentAt.set(text, performance.now());
      await request(server.port, 'POST', '/api/v1/threads/general/messages', headers, JSON.stringify({ text }));
      await delivered;
    }
    return summarize(samples);
  } finally {
    for (const controller of controllers) controller.abort();
    const closing = server.close();
    await hub.close();
    await closing;
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** A bare SSE fan-out over node:http to the same number of subscribers: the anchor. */
export async function bareSseDelivery(subscribers: number, posts: number): Promise<Summary> {
  const clients = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.flushHeaders();
    clients.add(res);
    req.on('close', () => clients.delete(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const samples: number[] = [];
  let pending = 0;
  let sent = 0;
  let wake: (() => void) | undefined;
  const requests: http.ClientRequest[] = [];
  await Promise.all(
    Array.from(
      { length: subscribers },
      () =>
        new Promise<void>((resolve) => {
          const req = http.get({ host: '127.0.0.1', port, path: '/' }, (res) => {
            resolve();
            res.on('data', () => {
              samples.push(performance.now() - sent);
              if (--pending === 0) wake?.();
            });
          });
          requests.push(req);
        }),
    ),
  );
  while (clients.size < subscribers) await new Promise((resolve) => setImmediate(resolve));
  for (let i = 0; i < posts; i++) {
    const delivered = new Promise<void>((resolve) => (wake = resolve));
    pending = subscribers;
    sent = performance.now();
    for (const res of clients) res.write(`id: ${i}\ndata: {"n":${i}}\n\n`);
    await delivered;
  }
  for (const req of requests) req.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  return summarize(samples);
}
