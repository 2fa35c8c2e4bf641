import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { wrap, type McpTestClient } from '../helpers/mcp.js';
import { mcpServedHub } from '../helpers/mcp-fixtures.js';

/** MCP over Streamable HTTP at /mcp of a real hub process, with the official SDK client. */
const served = mcpServedHub([
  { handle: 'human', session: 'proj', profile: { kind: 'human' } },
  { handle: 'coder', session: 'proj', profile: { client: 'claude-code' } },
  { handle: 'reviewer', session: 'proj' },
]);
const { tokens } = served;

async function connect(token: string, query = ''): Promise<McpTestClient & { transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${served.hub.url}/mcp${query}`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const client = new Client({ name: 'http-test', version: '1.0.0' });
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes++;
  });
  await client.connect(transport);
  return served.keep({ ...wrap(client, () => changes, () => client.close()), transport });
}

describe('mcp over http', () => {
  it('http mcp - tools, a post read by another agent, room_load with list_changed on the session stream', async () => {
    const coder = await connect(tokens.coder!);
    expect(coder.transport.sessionId).toMatch(/[0-9a-f-]{36}/);
    expect(coder.client.getInstructions()).toContain('You are @coder');
    expect(await coder.toolNames()).toContain('chat_post');
    const posted = await coder.call('chat_post', { text: 'the cache layer is drafted, @reviewer please look' });
    expect(posted.value).toMatchObject({ id: expect.any(String), seq: expect.any(Number), mentions: ['reviewer'] });
    const reviewer = await connect(tokens.reviewer!);
    const inbox = await reviewer.call('inbox');
    expect(inbox.value.items).toEqual([expect.objectContaining({ reason: 'mention', author: 'coder', respondHint: true, text: 'the cache layer is drafted, @reviewer please look' })]);
    await coder.call('room_load', { room: 'meeting' });
    await expect.poll(() => coder.listChanged(), { timeout: 5000 }).toBe(1);
    expect(await coder.toolNames()).toContain('meeting_hear');
  });

  it('http mcp - ?rooms=all loads every available room; a session answers only its own participant; bad tokens get 401', async () => {
    const all = await connect(tokens.human!, '?rooms=all');
    const names = await all.toolNames();
    expect(names).toEqual(expect.arrayContaining(['steer_pause', 'meeting_say', 'request_send', 'presence_set']));
    expect(names).not.toContain('katra_say');
    const sessionId = all.transport.sessionId!;
    const stolen = await fetch(`${served.hub.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.reviewer}`, 'mcp-session-id': sessionId, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(stolen.status).toBe(404);
    const anonymous = await fetch(`${served.hub.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(anonymous.status).toBe(401);
    const noSession = await fetch(`${served.hub.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.reviewer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(noSession.status).toBe(400);
    await expect(connect('pt_forged')).rejects.toThrow();
    const malformed = await fetch(`${served.hub.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.reviewer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc": "2.0", "method": ',
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: { code: -32700, message: expect.stringContaining('not valid JSON') } });
  });
});

describe('mcp http sessions', () => {
  it('http mcp - a notification sent while the session stream was down is replayed when the client resumes with Last-Event-ID', async () => {
    const headers = { authorization: `Bearer ${tokens.reviewer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
    const post = (body: unknown, session?: string) =>
      fetch(`${served.hub.url}/mcp`, { method: 'POST', headers: { ...headers, ...(session ? { 'mcp-session-id': session } : {}) }, body: JSON.stringify(body) });
    const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'resume-test', version: '1' } } });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202);
    // No stream is open: the list_changed this causes is kept for the session.
    const loaded = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'room_load', arguments: { room: 'meeting' } } }, session);
    expect(((await loaded.json()) as { result: { isError?: boolean } }).result.isError ?? false).toBe(false);
    const controller = new AbortController();
    const resumed = await fetch(`${served.hub.url}/mcp`, { headers: { ...headers, 'mcp-session-id': session, 'last-event-id': '_GET_stream:0' }, signal: controller.signal });
    expect(resumed.status).toBe(200);
    const reader = resumed.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('notifications/tools/list_changed')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    controller.abort();
    expect(text).toMatch(/id: _GET_stream:\d+/);
    expect(text).toContain('"method":"notifications/tools/list_changed"');
  });
});
