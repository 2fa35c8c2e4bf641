import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { summarize, type Summary } from './stats.js';

/**
 * The soak's agents, a process of their own: `tokens.length` official SDK
 * clients over Streamable HTTP, each in a loop of chat_post to #general then
 * chat_read of #general, for `seconds`. Each agent keeps one long-lived MCP
 * session, as an agent CLI does. Reports posts per window and post latency.
 */
export interface SoakLoadJob {
  url: string;
  tokens: string[];
  seconds: number;
  windowSeconds: number;
}

export interface SoakLoadResult {
  posts: number;
  reads: number;
  errors: number;
  firstError?: string;
  /** Posts acknowledged in each window of windowSeconds. */
  postsPerWindow: number[];
  postLatency: Summary;
}

async function run(job: SoakLoadJob): Promise<SoakLoadResult> {
  const clients = await Promise.all(
    job.tokens.map(async (token, i) => {
      const transport = new StreamableHTTPClientTransport(new URL(job.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
      const client = new Client({ name: `soak-agent-${i}`, version: '1.0.0' });
      await client.connect(transport);
      return client;
    }),
  );
  const started = performance.now();
  const deadline = started + job.seconds * 1000;
  const windows: number[] = [];
  const samples: number[] = [];
  let [posts, reads, errors] = [0, 0, 0];
  let firstError: string | undefined;
  await Promise.all(
    clients.map(async (client, i) => {
      for (let n = 0; performance.now() < deadline; n++) {
        try {
          const t0 = performance.now();
          const posted = await client.callTool({ name: 'chat_post', arguments: { text: `agent ${i} note ${n}: the cache layer needs an eviction policy` } });
          if (posted.isError) throw new Error(JSON.stringify(posted.content));
          const t1 = performance.now();
          samples.push(t1 - t0);
          posts++;
          const window = Math.floor((t1 - started) / (job.windowSeconds * 1000));
          windows[window] = (windows[window] ?? 0) + 1;
          const read = await client.callTool({ name: 'chat_read', arguments: {} });
          if (read.isError) throw new Error(JSON.stringify(read.content));
          reads++;
        } catch (error) {
          errors++;
          firstError ??= String(error);
        }
      }
    }),
  );
  await Promise.all(clients.map((c) => c.close()));
  return { posts, reads, errors, ...(firstError ? { firstError } : {}), postsPerWindow: Array.from(windows, (w) => w ?? 0), postLatency: summarize(samples) };
}

process.once('message', (job: SoakLoadJob) => {
  run(job).then(
    (result) => process.send?.({ ok: true, result }, () => process.exit(0)),
    (error: unknown) => process.send?.({ ok: false, error: String(error) }, () => process.exit(1)),
  );
});
