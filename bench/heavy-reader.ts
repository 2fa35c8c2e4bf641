import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { openBenchHub } from './open-hub.js';
import { createSilentLogger } from '../src/util/logger.js';
import { tempDir } from './core.js';
import { HUB_NODE_FLAGS, PARLEY_BIN, hubUrl, rssMb } from './hub-process.js';
import { summarize, type Summary } from './stats.js';

/**
 * One participant reading as hard as it can against a real hub process: a
 * thread of `messages` messages of about 4 KB, four concurrent exports of it,
 * and four MCP sessions sending JSON-RPC batches of chat_history {limit: 500}
 * (plus one batch far over the limit), while another participant posts at a
 * steady pace. Reports the hub's RSS at rest and at its peak (sampled from
 * /proc every 50 ms) and the other participant's post latency. Used by the
 * load test (test/load/heavy-reader.test.ts) and by `npm run bench`.
 */
const TEXT = 'the cache layer needs an eviction policy so we measure hit rates '.repeat(62); // ~4 KB

export interface HeavyReaderResult {
  messages: number;
  rssMb: { rest: number; peak: number };
  victim: Summary;
  exportLines: number[];
  batchAnswers: number;
  batchErrors: number;
  oversizedBatchStatus: number;
}

export async function heavyReaderAttack(options: { messages: number; batchSize: number }): Promise<HeavyReaderResult> {
  const home = tempDir('parley-heavy-reader-');
  let hub: ChildProcess | undefined;
  try {
    // The thread is written in process (fast), then served by a real hub on the same home.
    const seeding = await openBenchHub({ home, logger: createSilentLogger(), config: { chat: { scanner: { enabled: false }, limits: { writesPerMinute: 0 } } } });
    const hoarder = await seeding.join({ handle: 'hoarder', session: 's' });
    await seeding.join({ handle: 'victim', session: 's' });
    for (let done = 0; done < options.messages; done += 1000) {
      const n = Math.min(1000, options.messages - done);
      await Promise.all(Array.from({ length: n }, (_, i) => hoarder.post({ thread: 'general', text: `${done + i} ${TEXT}` })));
    }
    const hoarderToken = await seeding.issueToken('hoarder', 's');
    const victimToken = await seeding.issueToken('victim', 's');
    await seeding.close();
    // Posting speed is not measured here: the limit is set above the victim's steady pace.
    fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ chat: { limits: { writesPerMinute: 100_000 } } }));
    hub = spawn(process.execPath, [...HUB_NODE_FLAGS, PARLEY_BIN, 'serve', '--port', '0'], { env: { ...process.env, PARLEY_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    const url = await hubUrl(hub);
    const pid = hub.pid!;

    const post = async (i: number): Promise<number> => {
      const started = performance.now();
      const response = await fetch(`${url}/api/v1/threads/general/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${victimToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text: `victim ${i}` }),
      });
      if (response.status !== 201) throw new Error(`the victim's post answered ${response.status}: ${await response.text()}`);
      return performance.now() - started;
    };
    // Warm up what a resting hub has loaded: posts, an MCP session, a read.
    for (let i = 0; i < 20; i++) await post(i);
    const sessions = await Promise.all(Array.from({ length: 4 }, () => mcpSession(url, hoarderToken)));
    await (await sessions[0]!(historyBatch(1))).json();
    const rest = rssMb(pid);
    const oversized = await sessions[0]!(historyBatch(100));
    await oversized.text();

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
    let batchAnswers = 0;
    let batchErrors = 0;
    let exportLines: number[] = [];
    try {
      const exports = Array.from({ length: 4 }, () => exportLineCount(url, hoarderToken));
      const batches = sessions.map(async (send) => {
        for (let round = 0; round < 3; round++) {
          const response = await send(historyBatch(options.batchSize));
          const answers = (await response.json()) as Array<{ result?: { isError?: boolean } }>;
          for (const answer of answers) {
            batchAnswers++;
            if (!answer.result || answer.result.isError) batchErrors++;
          }
        }
      });
      exportLines = await Promise.all(exports);
      await Promise.all(batches);
    } finally {
      attacking = false;
      await victim;
      clearInterval(sampler);
    }
    return {
      messages: options.messages,
      rssMb: { rest, peak },
      victim: summarize(latencies),
      exportLines,
      batchAnswers,
      batchErrors,
      oversizedBatchStatus: oversized.status,
    };
  } finally {
    if (hub && hub.exitCode === null && hub.signalCode === null) {
      const exited = new Promise((resolve) => hub!.once('exit', resolve));
      hub.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(home, { recursive: true, force: true });
  }
}

const historyBatch = (size: number) =>
  Array.from({ length: size }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'chat_history', arguments: { limit: 500 } } }));

async function mcpSession(url: string, token: string): Promise<(body: unknown) => Promise<Response>> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hoarder', version: '1' } } }),
  });
  await init.text();
  const sessionId = init.headers.get('mcp-session-id') ?? '';
  const post = (body: unknown): Promise<Response> =>
    fetch(`${url}/mcp`, { method: 'POST', headers: { ...headers, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' }, body: JSON.stringify(body) });
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).text();
  return post;
}

/** Reads a whole JSON Lines export as a client would, counting its lines. */
async function exportLineCount(url: string, token: string): Promise<number> {
  const response = await fetch(`${url}/api/v1/threads/general/export?format=jsonl`, { headers: { authorization: `Bearer ${token}` } });
  if (response.status !== 200) throw new Error(`export answered ${response.status}`);
  let lines = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
  }
  return lines;
}
