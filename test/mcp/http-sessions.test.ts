import { afterEach, describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../src/config/schema.js';
import { startHttpServer, type HttpServer } from '../../src/http/server.js';
import { createMemoryLogger } from '../../src/util/logger.js';
import { closeServed, openTestHub, type TestHub } from '../helpers/hub.js';
import { connectHttp, type McpTestClient } from '../helpers/mcp.js';

/**
 * The MCP HTTP sessions a hub holds: memory stays flat however long a session
 * lives, one participant cannot evict another's sessions, and batches are
 * bounded. In-process hub and server, official SDK clients over real HTTP.
 */
let t: TestHub | undefined;
let server: HttpServer | undefined;
const clients: McpTestClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  await closeServed(t, server);
  server = undefined;
  t = undefined;
});

async function start(config: ConfigInput = {}): Promise<{ hub: TestHub['hub']; url: string; token: (handle: string) => Promise<string> }> {
  t = await openTestHub({ config: { chat: { limits: { writesPerMinute: 0 } }, ...config } });
  const hub = t.hub;
  server = await startHttpServer({ hub, host: '127.0.0.1', port: 0, logger: createMemoryLogger() });
  return {
    hub,
    url: server.url,
    token: async (handle) => {
      await hub.join({ handle, session: 's' });
      return hub.issueToken(handle, 's');
    },
  };
}

async function connect(url: string, token: string): Promise<McpTestClient> {
  const client = await connectHttp(url, token);
  clients.push(client);
  return client;
}

/** A raw MCP POST (initialize first) so a test can send what the SDK client would not. */
async function rawSession(url: string, token: string): Promise<(body: unknown) => Promise<Response>> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  expect(init.status).toBe(200);
  const sessionId = init.headers.get('mcp-session-id')!;
  const post = (body: unknown): Promise<Response> =>
    fetch(`${url}/mcp`, { method: 'POST', headers: { ...headers, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' }, body: JSON.stringify(body) });
  expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
  return post;
}

describe('mcp http sessions', () => {
  it('a long-lived session holds no response stream after its calls are answered (memory stays flat)', async () => {
    const { url, token } = await start();
    const agent = await connect(url, await token('agent'));
    for (let i = 0; i < 200; i++) {
      const posted = await agent.call('chat_post', { text: `note ${i}` });
      expect(posted.isError).toBe(false);
      if (i % 10 === 0) expect((await agent.call('chat_history', { limit: 5 })).isError).toBe(false);
    }
    expect(server!.mcp.stats()).toEqual({ sessions: 1, heldJsonResponses: 0 });
  });

  it('one participant opening sessions in a loop evicts only its own oldest, never another participant\'s', async () => {
    // Only the per-participant cap can bind: the flood spreads over four tokens (5 sessions each, under the
    // per-token cap), and the total cap is far above what the flood leaves.
    const { hub, url, token } = await start({ mcp: { maxSessions: 64, maxSessionsPerParticipant: 8, maxSessionsPerToken: 32 } });
    const victim = await connect(url, await token('victim'));
    const floodTokens = [await token('flooder'), ...(await Promise.all([1, 2, 3].map(() => hub.issueToken('flooder', 's'))))];
    const flood: McpTestClient[] = [];
    for (let i = 0; i < 20; i++) flood.push(await connect(url, floodTokens[i % floodTokens.length]!));
    expect(server!.mcp.size).toBe(9);
    // The victim's session still answers; the flooder's first sessions were closed, its last ones work.
    expect((await victim.call('whoami')).value).toMatchObject({ handle: 'victim' });
    await expect(flood[0]!.call('whoami')).rejects.toThrow(/404|Session not found|closed/i);
    expect((await flood[19]!.call('whoami')).value).toMatchObject({ handle: 'flooder' });
  });

  it('the total cap takes from whoever holds the most sessions', async () => {
    const { url, token } = await start({ mcp: { maxSessions: 6, maxSessionsPerParticipant: 32, maxSessionsPerToken: 32 } });
    const victims = [await connect(url, await token('v1')), await connect(url, await token('v2'))];
    const floodToken = await token('flooder');
    for (let i = 0; i < 10; i++) await connect(url, floodToken);
    expect(server!.mcp.size).toBe(6);
    for (const [i, v] of victims.entries()) expect((await v.call('whoami')).value).toMatchObject({ handle: `v${i + 1}` });
  });

  it('sessions are capped per token as well: another token of the same participant keeps its sessions', async () => {
    const { hub, url, token } = await start({ mcp: { maxSessionsPerToken: 3, maxSessionsPerParticipant: 32 } });
    const first = await token('agent');
    const second = await hub.issueToken('agent', 's');
    const kept = await connect(url, second);
    const flood: McpTestClient[] = [];
    for (let i = 0; i < 5; i++) flood.push(await connect(url, first));
    expect(server!.mcp.size).toBe(4);
    expect((await kept.call('whoami')).isError).toBe(false);
    await expect(flood[0]!.call('whoami')).rejects.toThrow(/404|Session not found|closed/i);
  });

  it('a JSON-RPC batch over mcp.maxBatchSize is refused whole, nothing of it runs; one within it is answered', async () => {
    const { hub, url, token } = await start({ mcp: { maxBatchSize: 4 } });
    const post = await rawSession(url, await token('agent'));
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'chat_post', arguments: { text: `batched ${id}` } } });
    const refused = await post(Array.from({ length: 5 }, (_, i) => call(i + 1)));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { code: -32600, message: expect.stringContaining('mcp.maxBatchSize') } });
    expect((await hub.actor('agent', 's').history({ thread: 'general' })).events.filter((e) => e.type === 'message')).toEqual([]);
    const plain = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await hub.issueToken('agent', 's')}`, 'content-type': 'text/plain', accept: 'application/json, text/event-stream' },
      body: '{not json',
    });
    expect(plain.status).toBe(415);
    expect(await plain.json()).toMatchObject({ error: { message: expect.stringContaining('application/json') } });
    const empty = await post([]);
    expect(empty.status).toBe(400);
    const answered = await post(Array.from({ length: 4 }, (_, i) => call(i + 1)));
    expect(answered.status).toBe(200);
    const results = (await answered.json()) as Array<{ id: number; result: { isError?: boolean } }>;
    expect(results.map((r) => r.id).sort()).toEqual([1, 2, 3, 4]);
    expect(results.every((r) => r.result.isError !== true)).toBe(true);
  });
});
