import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Hub } from '../../src/hub/hub.js';
import { humanHandles } from '../../src/mcp/instructions.js';
import { createMcpServer } from '../../src/mcp/server.js';

/**
 * An official SDK client connected to a participant's MCP server over the
 * SDK's in-memory transport: the protocol as real clients speak it, without
 * a socket. `listChanged` counts tools/list_changed notifications.
 */
export interface McpTestClient {
  client: Client;
  listChanged: () => number;
  /** Calls a tool and returns its parsed JSON result (or, for an error result, `{error: text}`). */
  call: (name: string, args?: Record<string, unknown>) => Promise<{ isError: boolean; value: Record<string, unknown>; text: string }>;
  toolNames: () => Promise<string[]>;
  close: () => Promise<void>;
}

export async function connectInMemory(hub: Hub, handle: string, session: string, rooms?: string[] | 'all'): Promise<McpTestClient> {
  const actor = hub.actor(handle, session);
  const humans = await humanHandles(actor);
  // As the hub's /mcp does: the tools follow the participant's access, live.
  const { server } = createMcpServer({
    api: actor,
    config: hub.config,
    participant: actor.participant,
    session,
    humans,
    access: () => actor.access,
    onAccessChange: (listener) => actor.onAccessChange(listener),
    ...(rooms ? { rooms } : {}),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'parley-test', version: '1.0.0' });
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes++;
  });
  await server.connect(serverSide);
  await client.connect(clientSide);
  return wrap(client, () => changes, async () => {
    await client.close();
    await server.close();
  });
}

export function wrap(client: Client, listChanged: () => number, close: () => Promise<void>): McpTestClient {
  return {
    client,
    listChanged,
    async call(name, args = {}) {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
      let value: Record<string, unknown>;
      try {
        value = result.isError ? { error: text } : (JSON.parse(text) as Record<string, unknown>);
      } catch {
        value = { text };
      }
      return { isError: result.isError === true, value, text };
    },
    async toolNames() {
      return (await client.listTools()).tools.map((t) => t.name);
    },
    close,
  };
}

/** An official SDK client connected to a hub process's /mcp over Streamable HTTP with a bearer token. */
export async function connectHttp(baseUrl: string, token: string, query = ''): Promise<McpTestClient> {
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp${query}`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const client = new Client({ name: 'parley-test', version: '1.0.0' });
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes++;
  });
  await client.connect(transport);
  return wrap(client, () => changes, () => client.close());
}
