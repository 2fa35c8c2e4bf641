import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { generateText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { parleyMiddleware } from '../src/middleware/index.js';
import { tempDir } from './core.js';
import { HUB_NODE_FLAGS, PARLEY_BIN, hubUrl } from './hub-process.js';

/**
 * What the LLM middleware adds to a model call, against a `parley serve` on
 * loopback: the median time of a `generateText` call on a model that answers at
 * once, bare, with the middleware and nothing new (one request to the hub), and
 * with one new DM each call (a peek before, a commit after). A real model takes
 * hundreds of milliseconds; 10-20 ms is what such a chat injection was measured
 * to cost elsewhere.
 */
export interface MiddlewareResult {
  calls: number;
  medianMs: { bare: number; nothingNew: number; oneNew: number };
}

/** Median overhead per model call with one new message, in ms. */
export const MIDDLEWARE_TARGET_MS = 5;

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function join(url: string, admin: string, handle: string, kind: string): Promise<string> {
  const joined = await fetch(`${url}/api/v1/participants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ handle, profile: { kind } }),
  });
  if (!joined.ok) throw new Error(`join ${handle}: ${joined.status} ${await joined.text()}`);
  return ((await joined.json()) as { token: string }).token;
}

export async function middlewareBench(options: { calls: number }): Promise<MiddlewareResult> {
  const home = tempDir('parley-middleware-');
  fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ chat: { limits: { writesPerMinute: 1_000_000 } } }));
  const hub = spawn(process.execPath, [...HUB_NODE_FLAGS, PARLEY_BIN, 'serve', '--port', '0'], { env: { ...process.env, PARLEY_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const url = await hubUrl(hub);
    const admin = fs.readFileSync(path.join(home, 'admin.token'), 'utf8').trim();
    const agentToken = await join(url, admin, 'bench-agent', 'agent');
    const humanToken = await join(url, admin, 'bench-human', 'human');
    const model = new MockLanguageModelV3({ doGenerate: { content: [{ type: 'text', text: 'ok' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] } });
    const parley = parleyMiddleware({ handle: 'bench-agent', url, token: agentToken, log: false });
    const wrapped = wrapLanguageModel({ model, middleware: parley });
    const dm = (n: number): Promise<Response> =>
      fetch(`${url}/api/v1/dm`, {
        method: 'POST',
        headers: { authorization: `Bearer ${humanToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ to: 'bench-agent', text: `message ${n}` }),
      });
    const time = async (call: () => Promise<unknown>): Promise<number> => {
      const started = process.hrtime.bigint();
      await call();
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    const samples = { bare: [] as number[], nothingNew: [] as number[], oneNew: [] as number[] };
    // One untimed round of each warms the connections and the code.
    await generateText({ model, prompt: 'go' });
    await generateText({ model: wrapped, prompt: 'go' });
    for (let i = 0; i < options.calls; i++) {
      samples.bare.push(await time(() => generateText({ model, prompt: 'go' })));
      samples.nothingNew.push(await time(() => generateText({ model: wrapped, prompt: 'go' })));
      const posted = await dm(i);
      if (!posted.ok) throw new Error(`dm: ${posted.status} ${await posted.text()}`);
      samples.oneNew.push(await time(() => generateText({ model: wrapped, prompt: 'go' })));
    }
    const injected = model.doGenerateCalls.filter((call) => JSON.stringify(call.prompt[call.prompt.length - 1]).includes('Recent chat messages')).length;
    if (injected !== options.calls) throw new Error(`the middleware injected into ${injected} calls, not ${options.calls}`);
    parley.close();
    return { calls: options.calls, medianMs: { bare: median(samples.bare), nothingNew: median(samples.nothingNew), oneNew: median(samples.oneNew) } };
  } finally {
    const exited = new Promise((resolve) => hub.once('exit', resolve));
    hub.kill('SIGTERM');
    await exited;
    fs.rmSync(home, { recursive: true, force: true });
  }
}
