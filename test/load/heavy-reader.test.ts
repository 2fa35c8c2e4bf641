import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHub } from '../../src/hub/hub.js';
import { createSilentLogger } from '../../src/util/logger.js';
import { tempHome } from '../helpers/hub.js';
import { startServe, stopHubs, type RunningHub } from '../helpers/serve.js';

/**
 * One participant reading as hard as it can — concurrent exports and
 * JSON-RPC batches of chat_history over a thread of 30,000 messages of about
 * 4 KB — must neither balloon the hub's memory (≤ 100 MB over its resting RSS)
 * nor hold up another participant's posts (p99 ≤ 50 ms). A real hub process;
 * its RSS is read from /proc while the attack runs. Runs alone (test/load).
 */
const MESSAGES = 30_000;
const TEXT = 'the cache layer needs an eviction policy so we measure hit rates '.repeat(62); // ~4 KB

let hub: RunningHub;
let cleanup: () => void = () => undefined;
let hoarderToken = '';
let victimToken = '';

beforeAll(async () => {
  const home = tempHome();
  cleanup = home.cleanup;
  // The thread is written in process (fast), then served by a real hub on the same home.
  const seeding = await openHub({ home: home.home, logger: createSilentLogger(), config: { chat: { scanner: { enabled: false }, limits: { postsPerMinute: 0 } } } });
  const hoarder = await seeding.join({ handle: 'hoarder', session: 's' });
  await seeding.join({ handle: 'victim', session: 's' });
  for (let done = 0; done < MESSAGES; done += 1000) {
    await Promise.all(Array.from({ length: 1000 }, (_, i) => hoarder.post({ thread: 'general', text: `${done + i} ${TEXT}` })));
  }
  hoarderToken = await seeding.issueToken('hoarder', 's');
  victimToken = await seeding.issueToken('victim', 's');
  await seeding.close();
  // Posting speed is not what this test is about: the limit is set for the victim's steady pace.
  fs.writeFileSync(path.join(home.home, 'config.json'), JSON.stringify({ chat: { limits: { postsPerMinute: 100_000 } } }));
  hub = await startServe(home.home);
}, 180_000);

afterAll(async () => {
  await stopHubs();
  cleanup();
});

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

async function exportAll(): Promise<number> {
  const response = await fetch(`${hub.url}/api/v1/threads/general/export?format=jsonl`, { headers: { authorization: `Bearer ${hoarderToken}` } });
  expect(response.status).toBe(200);
  let lines = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
  }
  return lines;
}

async function mcpSession(): Promise<(body: unknown) => Promise<Response>> {
  const headers = { authorization: `Bearer ${hoarderToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await fetch(`${hub.url}/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hoarder', version: '1' } } }),
  });
  const sessionId = init.headers.get('mcp-session-id')!;
  const post = (body: unknown): Promise<Response> =>
    fetch(`${hub.url}/mcp`, { method: 'POST', headers: { ...headers, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' }, body: JSON.stringify(body) });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return post;
}

const historyBatch = (size: number) =>
  Array.from({ length: size }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'chat_history', arguments: { limit: 500 } } }));

describe('one heavy reader', () => {
  it('concurrent exports and history batches keep hub RSS within 100 MB of rest and another participant\'s post p99 within 50 ms', async () => {
    const pid = hub.child.pid!;
    const post = async (i: number): Promise<number> => {
      const started = performance.now();
      const response = await fetch(`${hub.url}/api/v1/threads/general/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${victimToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text: `victim ${i}` }),
      });
      expect(response.status).toBe(201);
      return performance.now() - started;
    };
    // Warm up what a resting hub has loaded: a post, a read, an MCP session.
    for (let i = 0; i < 20; i++) await post(i);
    const sessions = await Promise.all(Array.from({ length: 4 }, () => mcpSession()));
    await (await sessions[0]!(historyBatch(1))).json();
    const rest = rssMb(pid);

    // A batch far over the limit is refused before any of it runs.
    const oversized = await sessions[0]!(historyBatch(100));
    expect(oversized.status).toBe(400);

    let peak = rest;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
    const latencies: number[] = [];
    let attacking = true;
    const victim = (async () => {
      for (let i = 0; attacking || latencies.length < 100; i++) {
        latencies.push(await post(1000 + i));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    try {
      const exports = Array.from({ length: 4 }, () => exportAll());
      const batches = sessions.map(async (send) => {
        for (let round = 0; round < 3; round++) {
          const response = await send(historyBatch(8));
          expect(response.status).toBe(200);
          const answers = (await response.json()) as Array<{ result: { isError?: boolean; content: Array<{ text: string }> } }>;
          expect(answers).toHaveLength(8);
          for (const answer of answers) expect(answer.result.isError).not.toBe(true);
        }
      });
      const lines = await Promise.all(exports);
      await Promise.all(batches);
      // Every export holds the whole thread (its creation event, the messages, the victim's warm-up posts at least).
      for (const n of lines) expect(n).toBeGreaterThan(MESSAGES);
    } finally {
      attacking = false;
      await victim;
      clearInterval(sampler);
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    const p99 = sorted[Math.ceil(sorted.length * 0.99) - 1]!;
    console.log(`heavy reader: rest ${rest.toFixed(0)} MB, peak ${peak.toFixed(0)} MB (+${(peak - rest).toFixed(0)} MB); victim posts ${latencies.length}, p50 ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`);
    expect(peak - rest).toBeLessThanOrEqual(100);
    expect(p99).toBeLessThanOrEqual(50);
  }, 300_000);
});
