import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { summarize, type Summary } from './stats.js';

/**
 * The MCP benchmarks' load generator, a process of its own (see load-client.ts
 * for why): `agents` official SDK clients, each calling one tool in a loop
 * until `total` calls are done, over Streamable HTTP or stdio.
 */
export interface McpLoadJob {
  transport: 'http' | 'stdio';
  /** http: the /mcp URL and one bearer token per agent (or none). */
  url?: string;
  tokens?: string[];
  /** stdio: the command and its arguments per agent; {i} is replaced by the agent's number. */
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  agents: number;
  total: number;
  /** Untimed calls per agent first, in this process and over these connections (at least 3). */
  warmup?: number;
  tool: string;
  arguments: Record<string, unknown>;
}

export interface McpLoadResult {
  agents: number;
  calls: number;
  perSecond: number;
  latency: Summary;
}

async function connect(job: McpLoadJob, i: number): Promise<Client> {
  let transport: Transport;
  if (job.transport === 'http') {
    const token = job.tokens?.[i];
    transport = new StreamableHTTPClientTransport(new URL(job.url!), token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : undefined);
  } else {
    transport = new StdioClientTransport({
      command: job.command!,
      args: (job.args ?? []).map((a) => a.replace('{i}', String(i))),
      env: { ...(process.env as Record<string, string>), ...job.env },
      stderr: 'ignore',
    });
  }
  const client = new Client({ name: `bench-agent-${i}`, version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function run(job: McpLoadJob): Promise<McpLoadResult> {
  const clients = await Promise.all(Array.from({ length: job.agents }, (_, i) => connect(job, i)));
  // Warm-up, untimed: the client's, the server's and (over stdio) each server process's code and connections.
  await Promise.all(clients.map(async (c) => {
    for (let k = 0; k < Math.max(3, job.warmup ?? 0); k++) await c.callTool({ name: job.tool, arguments: job.arguments });
  }));
  const samples: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      while (next++ < job.total) {
        const t0 = performance.now();
        const result = await client.callTool({ name: job.tool, arguments: job.arguments });
        if (result.isError) throw new Error(`${job.tool} failed: ${JSON.stringify(result.content)}`);
        samples.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  await Promise.all(clients.map((c) => c.close()));
  return { agents: job.agents, calls: job.total, perSecond: job.total / seconds, latency: summarize(samples) };
}

process.once('message', (job: McpLoadJob) => {
  run(job).then(
    (result) => process.send?.({ ok: true, result }, () => process.exit(0)),
    (error: unknown) => process.send?.({ ok: false, error: String(error) }, () => process.exit(1)),
  );
});
