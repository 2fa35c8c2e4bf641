import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { heldJsonResponses, releaseFinishedJsonResponses } from '../../src/mcp/json-response-release.js';

/**
 * Pins the MCP SDK's JSON-response-mode leak that src/mcp/json-response-release.ts
 * works around: every answered POST leaves an entry in the transport until the
 * session closes. If the first test fails after an SDK upgrade, the SDK fixed
 * it: remove the workaround (and this test).
 */
async function session(release: boolean): Promise<{ transport: WebStandardStreamableHTTPServerTransport; call: (id: number) => Promise<unknown> }> {
  const server = new McpServer({ name: 'pin', version: '1.0.0' });
  server.registerTool('echo', { description: 'echo' }, () => ({ content: [{ type: 'text', text: 'ok' }] }));
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => 'pinned-session', enableJsonResponse: true });
  if (release) releaseFinishedJsonResponses(transport);
  await server.connect(transport);
  const post = async (body: unknown): Promise<Response> =>
    transport.handleRequest(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': 'pinned-session',
          'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
        },
        body: JSON.stringify(body),
      }),
    );
  const init = await post({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'pin', version: '1.0.0' } },
  });
  expect(init.status).toBe(200);
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    transport,
    call: async (id) => {
      const response = await post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: {} } });
      expect(response.status).toBe(200);
      return response.json();
    },
  };
}

describe('MCP SDK JSON-response streams', () => {
  it('the SDK as pinned keeps one stream entry per answered POST (upstream typescript-sdk #2559)', async () => {
    const { transport, call } = await session(false);
    for (let id = 1; id <= 50; id++) expect(await call(id)).toMatchObject({ id, result: { content: [{ text: 'ok' }] } });
    // initialize + 50 calls, all answered, all still held.
    expect(heldJsonResponses(transport)).toBe(51);
    await transport.close();
  });

  it('with the release, an answered POST leaves nothing behind, and answers are unchanged', async () => {
    const { transport, call } = await session(true);
    for (let id = 1; id <= 50; id++) expect(await call(id)).toMatchObject({ id, result: { content: [{ text: 'ok' }] } });
    expect(heldJsonResponses(transport)).toBe(0);
    await transport.close();
  });
});
