import { fork, spawn } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openBenchHub } from './open-hub.js';
import { createAdminCredential } from '../src/home/admin-token.js';
import { startHttpServer } from '../src/http/server.js';
import { startLocalSocket } from '../src/local-socket/local-socket-server.js';
import { createSilentLogger } from '../src/util/logger.js';
import { tempDir, UNLIMITED_WRITES } from './core.js';
import type { McpLoadJob, McpLoadResult } from './mcp-load.js';

/**
 * MCP tool-call round trips: `chat_post` and `inbox` over Streamable HTTP
 * (/mcp of the hub) and over stdio (`parley mcp`, which forwards to the hub),
 * at several numbers of concurrent agents, each beside the floor: the SDK's
 * own McpServer with an `echo` tool on the SDK's default transports, driven by
 * the same load generator in the same run. Also the size of tools/list.
 */
const BIN = fileURLToPath(new URL('../../bin/parley', import.meta.url));
const ECHO = fileURLToPath(new URL('./mcp-echo-server.js', import.meta.url));

function load(job: McpLoadJob): Promise<McpLoadResult> {
  const child = fork(new URL('./mcp-load.js', import.meta.url), { stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    child.once('message', (message: { ok: boolean; result?: McpLoadResult; error?: string }) =>
      message.ok ? resolve(message.result!) : reject(new Error(`MCP load generator: ${message.error}`)),
    );
    child.once('exit', (code) => reject(new Error(`MCP load generator exited with ${code}`)));
    child.send(job);
  });
}

async function echoHttpServer(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [ECHO, 'http'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) => child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())));
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => child.kill() };
}

export interface McpRun {
  transport: 'http' | 'stdio';
  tool: string;
  agents: number;
  hub: McpLoadResult;
  floor: McpLoadResult;
}

/** About 200 untimed calls in all before each timed run (a fresh `parley mcp` or echo process runs its first calls several times slower), at least 3 per agent. */
function warmupPerAgent(agents: number): number {
  return Math.max(3, Math.ceil(200 / agents));
}

export async function mcpRoundTrips(options: { httpLevels: number[]; stdioLevels: number[]; calls: number }): Promise<{ runs: McpRun[]; toolList: Record<string, { bytes: number; tokens: number; tools: number }> }> {
  const home = tempDir('parley-bench-mcp-');
  const hub = await openBenchHub({ home, logger: createSilentLogger(), config: UNLIMITED_WRITES });
  // With the admin credential, as `parley serve` runs it: `parley mcp` joins its agents through it.
  const server = await startHttpServer({ hub, host: '127.0.0.1', port: 0, logger: createSilentLogger(), admin: createAdminCredential(home) });
  // And its local socket, as `parley serve` runs it: `parley mcp` on the same home calls through it.
  const localSocket = await startLocalSocket({ hub, home, url: server.url, logger: createSilentLogger() });
  const echo = await echoHttpServer();
  const runs: McpRun[] = [];
  try {
    const most = Math.max(...options.httpLevels, ...options.stdioLevels);
    const tokens: string[] = [];
    for (let i = 0; i < most; i++) {
      await hub.join({ handle: `agent-${i}`, session: 'bench' });
      tokens.push(await hub.issueToken(`agent-${i}`, 'bench'));
    }
    const tools: Array<[string, Record<string, unknown>]> = [
      ['chat_post', { text: 'the cache layer is drafted; eviction is LRU with a size cap' }],
      ['inbox', {}],
    ];
    for (const agents of options.httpLevels) {
      const floor = await load({ transport: 'http', url: echo.url, agents, total: options.calls, warmup: warmupPerAgent(agents), tool: 'echo', arguments: { text: 'the cache layer is drafted; eviction is LRU with a size cap' } });
      for (const [tool, args] of tools) {
        const measured = await load({ transport: 'http', url: `${server.url}/mcp`, tokens, agents, total: options.calls, warmup: warmupPerAgent(agents), tool, arguments: args });
        runs.push({ transport: 'http', tool, agents, hub: measured, floor });
      }
    }
    for (const agents of options.stdioLevels) {
      const calls = Math.max(200, Math.floor(options.calls / 2));
      const floor = await load({ transport: 'stdio', command: process.execPath, args: [ECHO, 'stdio'], agents, total: calls, warmup: warmupPerAgent(agents), tool: 'echo', arguments: { text: 'the cache layer is drafted; eviction is LRU with a size cap' } });
      const env = { PARLEY_URL: server.url, PARLEY_HOME: home };
      for (const [tool, args] of tools) {
        const measured = await load({ transport: 'stdio', command: process.execPath, args: [BIN, 'mcp', '--as', 'agent-{i}', '--session', 'bench'], env, agents, total: calls, warmup: warmupPerAgent(agents), tool, arguments: args });
        runs.push({ transport: 'stdio', tool, agents, hub: measured, floor });
      }
    }
    const toolList: Record<string, { bytes: number; tokens: number; tools: number }> = {};
    for (const rooms of ['default', 'all']) {
      const response = await listTools(`${server.url}/mcp${rooms === 'all' ? '?rooms=all' : ''}`, tokens[0]!);
      const bytes = Buffer.byteLength(JSON.stringify(response));
      toolList[rooms] = { bytes, tokens: Math.ceil(bytes / 4), tools: response.length };
    }
    return { runs, toolList };
  } finally {
    echo.stop();
    const closing = Promise.all([server.close(), localSocket?.close()]);
    await hub.close();
    await closing;
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** tools/list as a client sees it (initialize, then list), over plain HTTP. */
async function listTools(url: string, token: string): Promise<unknown[]> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }),
  });
  const session = init.headers.get('mcp-session-id') ?? '';
  await init.text();
  const list = await fetch(url, { method: 'POST', headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
  return ((await list.json()) as { result: { tools: unknown[] } }).result.tools;
}
