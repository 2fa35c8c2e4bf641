import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseResponse, postJson, UNREACHABLE } from '../../src/client/socket-post.js';

/**
 * The hook's request over a plain socket, against Node's own HTTP server on
 * loopback: a body with a length, a chunked body, the headers the hub's host
 * guard reads, an abort, and no one listening.
 */
const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(handler: http.RequestListener): Promise<URL> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/agent/hook?x=1`);
}

const never = new AbortController().signal;

describe('hook request', () => {
  it('hook request - posts the body with its headers and the Host, and reads an answer with a length', async () => {
    let seen: { method?: string; url?: string; host?: string; auth?: string; body: string } = { body: '' };
    const url = await serve((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen = { method: req.method, url: req.url, host: req.headers.host, auth: req.headers.authorization, body };
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"injected":1,"text":"héllo"}');
      });
    });
    const answer = await postJson(url, { authorization: 'Bearer pt_x', 'content-type': 'application/json' }, '{"event":"tool"}', 5000, never);
    expect(answer).toEqual({ status: 200, text: '{"injected":1,"text":"héllo"}' });
    expect(seen).toEqual({ method: 'POST', url: '/api/v1/agent/hook?x=1', host: url.host, auth: 'Bearer pt_x', body: '{"event":"tool"}' });
  });

  it('hook request - reads a chunked answer whole', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(409, { 'content-type': 'application/json' });
      res.write('{"error":{"code":"CONFLICT",');
      setImmediate(() => res.end('"message":"no"}}'));
    });
    expect(await postJson(url, {}, '{}', 5000, never)).toEqual({ status: 409, text: '{"error":{"code":"CONFLICT","message":"no"}}' });
  });

  it('hook request - says unreachable when nothing listens, and stops when aborted', async () => {
    // A port that was just listening and is closed now.
    const closed = await serve(() => undefined);
    await new Promise((resolve) => servers.pop()!.close(resolve));
    await expect(postJson(closed, {}, '{}', 5000, never)).rejects.toThrow(UNREACHABLE);

    const hanging = await serve(() => undefined);
    const abort = new AbortController();
    const pending = postJson(hanging, {}, '{}', 5000, abort.signal);
    abort.abort();
    await expect(pending).rejects.toThrow('aborted');
  });

  it('hook request - an answer cut off before its length is an error, not a short body', () => {
    expect(() => parseResponse(Buffer.from('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n{"a":'))).toThrow('cut off');
    expect(() => parseResponse(Buffer.from('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\n{"a":'))).toThrow('cut off');
    expect(parseResponse(Buffer.from('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\n{"a\r\n4\r\n":1}\r\n0\r\n\r\n'))).toEqual({ status: 200, text: '{"a":1}' });
  });
});
