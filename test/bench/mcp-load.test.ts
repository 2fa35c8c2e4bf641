import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { testHubsClosedAfterEach } from '../helpers/hub.js';

// The built script, as bench/mcp.ts forks it (npm run build first).
const MCP_LOAD = fileURLToPath(new URL('../../dist/bench/mcp-load.js', import.meta.url));
const hubs = testHubsClosedAfterEach();

describe('the MCP load generator of the benchmarks', () => {
  it('mcp load - each agent warms up with its own untimed calls first, and only the timed calls are counted', async () => {
    const t = await hubs.open();
    const server = await hubs.serve(t);
    const tokens: string[] = [];
    for (const handle of ['agent-0', 'agent-1']) {
      await t.hub.join({ handle, session: 'bench' });
      tokens.push(await t.hub.issueToken(handle, 'bench'));
    }
    const child = fork(MCP_LOAD, { stdio: 'inherit' });
    const reply = once(child, 'message') as Promise<[{ ok: boolean; error?: string; result: { calls: number; latency: { count: number } } }]>;
    child.send({ transport: 'http', url: `${server.url}/mcp`, tokens, agents: 2, total: 6, warmup: 5, tool: 'chat_post', arguments: { text: 'load' } });
    const [message] = await reply;
    await once(child, 'exit');
    expect(message.error).toBeUndefined();
    expect(message.result.calls).toBe(6);
    expect(message.result.latency.count).toBe(6);
    // 5 warm-up posts by each agent, then the 6 timed ones.
    const reader = await t.hub.join({ handle: 'reader', session: 'bench' });
    const history = await reader.history({ thread: 'general', limit: 100 });
    const posts = history.events.filter((event) => event.type === 'message' && event.content === 'load');
    expect(posts).toHaveLength(16);
    expect(new Set(posts.slice(0, 10).map((event) => event.from)).size).toBe(2);
  });
});
