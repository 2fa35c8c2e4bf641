import { fork } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

// The built script, as bench/http.ts forks it (npm run build first).
const LOAD_CLIENT = fileURLToPath(new URL('../../dist/bench/load-client.js', import.meta.url));

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('the REST load generator of the benchmarks', () => {
  it('load client - warms up on the connections it then times, and counts only the timed requests', async () => {
    const ports: number[] = [];
    const server = http.createServer((req, res) => {
      ports.push(req.socket.remotePort ?? 0);
      req.resume();
      req.on('end', () => res.writeHead(201, { 'content-type': 'application/json' }).end('{}'));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const child = fork(LOAD_CLIENT, { stdio: 'inherit' });
    const reply = once(child, 'message') as Promise<[{ ok: boolean; result: { requests: number; latency: { count: number } } }]>;
    child.send({ kind: 'rest', port: (server.address() as AddressInfo).port, path: '/', headers: { 'content-type': 'application/json' }, body: '{"text":"x"}', clients: 4, total: 60, warmup: 40 });
    const [{ ok, result }] = await reply;
    await once(child, 'exit');
    expect(ok).toBe(true);
    expect(ports).toHaveLength(100);
    expect(result.requests).toBe(60);
    expect(result.latency.count).toBe(60);
    // One process, one pool of 4 connections: the timed requests go over the warmed ones.
    const warmed = new Set(ports.slice(0, 40));
    expect(warmed.size).toBe(4);
    expect(ports.slice(40).every((port) => warmed.has(port))).toBe(true);
  });
});
