import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { IncomingHeaders, transportRequest, type TransportRequest } from '../../src/mcp/node-request.js';

/** The request the MCP transport reads, made from a real IncomingMessage on a loopback server. */
let server: http.Server | undefined;
afterEach(async () => {
  const s = server;
  server = undefined;
  if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
});

async function capture(headers: Record<string, string | string[]>): Promise<{ request: TransportRequest; closed: Promise<void> }> {
  let resolveCaptured!: (value: { request: TransportRequest; closed: Promise<void> }) => void;
  const captured = new Promise<{ request: TransportRequest; closed: Promise<void> }>((resolve) => (resolveCaptured = resolve));
  server = http.createServer((incoming, outgoing) => {
    const closed = new Promise<void>((resolve) => outgoing.once('close', () => resolve()));
    const request = transportRequest(incoming, `http://127.0.0.1${incoming.url}`, (listener) => outgoing.once('close', listener));
    resolveCaptured({ request, closed });
    outgoing.end('ok');
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const req = http.request({ port, host: '127.0.0.1', method: 'POST', path: '/mcp?rooms=all', headers, agent: false }, resolve);
    req.on('error', reject);
    req.end('{}');
  });
  response.resume();
  return captured;
}

describe('the MCP transport request made from Node', () => {
  it('reads method, url and headers as a fetch Request would', async () => {
    const { request } = await capture({ 'Mcp-Session-Id': 'abc', accept: 'application/json, text/event-stream', 'x-many': ['one', 'two'] });
    const fetchHeaders = new Headers({ 'mcp-session-id': 'abc', accept: 'application/json, text/event-stream' });
    fetchHeaders.append('x-many', 'one');
    fetchHeaders.append('x-many', 'two');
    expect(request.method).toBe('POST');
    expect(new URL(request.url).searchParams.get('rooms')).toBe('all');
    expect(request.headers.get('MCP-SESSION-ID')).toBe('abc');
    expect(request.headers.get('x-many')).toBe(fetchHeaders.get('x-many'));
    expect(request.headers.get('mcp-protocol-version')).toBeNull();
    expect(request.headers.has('Accept')).toBe(true);
    const names = [...request.headers.entries()].map(([name]) => name);
    expect(names).toEqual([...names].sort());
    const ours = Object.fromEntries(request.headers.entries());
    expect(ours['x-many']).toBe('one, two');
    expect(ours['mcp-session-id']).toBe('abc');
    expect(ours.host).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  it('aborts its signal once the response has closed, also when asked for it afterwards', async () => {
    const { request, closed } = await capture({});
    await closed;
    expect(request.signal.aborted).toBe(true);
  });

  it('headers from an object: absent names are null, arrays joined', () => {
    const headers = new IncomingHeaders({ a: '1', 'set-cookie': ['x=1', 'y=2'] });
    expect(headers.get('A')).toBe('1');
    expect(headers.get('b')).toBeNull();
    expect(headers.get('set-cookie')).toBe('x=1, y=2');
    const seen: string[] = [];
    headers.forEach((value, name) => seen.push(`${name}=${value}`));
    expect(seen).toEqual(['a=1', 'set-cookie=x=1, y=2']);
    expect([...headers.keys()]).toEqual(['a', 'set-cookie']);
  });
});
