import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/**
 * The floor the MCP benchmarks compare with: the official SDK's McpServer
 * with one `echo` tool, on the SDK's default transports (Streamable HTTP with
 * its defaults, or stdio). Run as a script: `stdio`, or `http` (prints the port).
 */
function echoServer(): McpServer {
  const server = new McpServer({ name: 'echo-floor', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echoes its text.', inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  return server;
}

const mode = process.argv[2];
if (mode === 'stdio') {
  await echoServer().connect(new StdioServerTransport());
} else {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const answer = async (req: http.IncomingMessage, res: http.ServerResponse, chunks: Buffer[]): Promise<void> => {
    const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown) : undefined;
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport && isInitializeRequest(body)) {
      const created = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => void sessions.set(sid, created) });
      await echoServer().connect(created);
      transport = created;
    }
    if (!transport) {
      res.writeHead(400).end();
      return;
    }
    await transport.handleRequest(req, res, body);
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A request that fails (a body that is not JSON, say) is answered 500 and said on stderr, not left hanging.
    req.on('end', () => {
      answer(req, res, chunks).catch((error: unknown) => {
        process.stderr.write(`mcp-echo-server: ${String(error)}\n`);
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as { port: number }).port}\n`));
}
