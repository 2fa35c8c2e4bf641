import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { claude } from '../test/fixtures/client-events.js';
import { tempDir } from './core.js';
import { HUB_NODE_FLAGS, PARLEY_BIN, hubUrl } from './hub-process.js';

/**
 * Start-up cost of the CLI, which people type and hooks run on every tool
 * call: the median wall time of `node -e 0`, `parley --version`, `parley
 * say` and `parley hook claude post-tool-use` (nothing new) against a running
 * hub, measured in the same run and interleaved (so a busy moment of the
 * machine weighs on all alike), with the ratios to bare Node. The commands
 * people type run the way bin/parley runs them: this Node, with the flags of
 * its first line; the hook runs as "parley install" writes it: this Node and
 * bin/parley's path, no flag, the event JSON on stdin; once told the hub's
 * address (install given --url), once finding it through the home (install's
 * default), where the hub first proves it is the home's hub.
 */
export interface StartupResult {
  runs: number;
  medianMs: { node: number; version: number; say: number; hook: number; hookHome: number };
  ratio: { version: number; say: number; hook: number; hookHome: number };
}

/** What Claude Code passes a PostToolUse hook on stdin: the one copy the hook tests use too. */
const POST_TOOL_USE = JSON.stringify(claude.postToolUse('bench-session'));

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Wall time of one process from spawn to exit, in ms; a failed run (or a hook that says anything) is an error, not a sample. */
function timed(args: string[], env: NodeJS.ProcessEnv, stdin?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env, stdio: [stdin === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'] });
    if (stdin !== undefined) child.stdin!.end(stdin);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code === 0 && stderr === '') resolve(ms);
      else reject(new Error(`${args.join(' ')} exited with ${code}: ${stderr}`));
    });
  });
}

export async function startupBench(options: { runs: number }): Promise<StartupResult> {
  const home = tempDir('parley-startup-');
  // Many posts by one participant in a short while: above the post limit, which is not what this measures.
  fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ chat: { limits: { writesPerMinute: 1_000_000 } } }));
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('PARLEY_')) env[key] = value;
  const hub = spawn(process.execPath, [...HUB_NODE_FLAGS, PARLEY_BIN, 'serve', '--port', '0'], { env: { ...env, PARLEY_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const url = await hubUrl(hub);
    const admin = fs.readFileSync(path.join(home, 'admin.token'), 'utf8').trim();
    const joined = await fetch(`${url}/api/v1/participants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ handle: 'bench' }),
    });
    if (!joined.ok) throw new Error(`join: ${joined.status} ${await joined.text()}`);
    const token = ((await joined.json()) as { token: string }).token;
    const cliEnv = { ...env, PARLEY_HOME: home, PARLEY_URL: url, PARLEY_TOKEN: token };
    // The hook finds its token where "parley join" keeps it, and is told the hub and home as install writes them.
    fs.writeFileSync(path.join(home, 'credentials.json'), JSON.stringify({ 'default/bench': token }), { mode: 0o600 });
    const hookHomeArgs = [PARLEY_BIN, 'hook', 'claude', 'post-tool-use', '--as', 'bench', '--home', home];
    const hookArgs = [...hookHomeArgs, '--url', url];
    const commands = {
      node: () => timed(['-e', '0'], env),
      version: () => timed([...HUB_NODE_FLAGS, PARLEY_BIN, '--version'], cliEnv),
      say: () => timed([...HUB_NODE_FLAGS, PARLEY_BIN, 'say', 'general', 'start-up sample'], cliEnv),
      // Its own posts never come back to it: each run finds nothing new, the common case between tool calls.
      hook: () => timed(hookArgs, env, POST_TOOL_USE),
      hookHome: () => timed(hookHomeArgs, env, POST_TOOL_USE),
    };
    // One untimed round warms the file cache.
    for (const run of Object.values(commands)) await run();
    const samples = { node: [] as number[], version: [] as number[], say: [] as number[], hook: [] as number[], hookHome: [] as number[] };
    for (let i = 0; i < options.runs; i++) {
      for (const name of ['node', 'version', 'say', 'hook', 'hookHome'] as const) samples[name].push(await commands[name]());
    }
    const medianMs = { node: median(samples.node), version: median(samples.version), say: median(samples.say), hook: median(samples.hook), hookHome: median(samples.hookHome) };
    return {
      runs: options.runs,
      medianMs,
      ratio: {
        version: medianMs.version / medianMs.node,
        say: medianMs.say / medianMs.node,
        hook: medianMs.hook / medianMs.node,
        hookHome: medianMs.hookHome / medianMs.node,
      },
    };
  } finally {
    const exited = new Promise((resolve) => hub.once('exit', resolve));
    hub.kill('SIGTERM');
    await exited;
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** The hook runs on every tool call: within this factor of bare Node, process start included. */
export const HOOK_TARGET_RATIO = 1.5;

// Run alone: `node dist/bench/startup.js [RUNS]` (npm run bench runs it too, first).
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const result = await startupBench({ runs: Number(process.argv[2] ?? 30) });
  const fmt = (n: number): string => n.toFixed(1);
  process.stdout.write(
    [
      `start-up, median of ${result.runs} runs each, interleaved:`,
      `  node -e 0                              ${fmt(result.medianMs.node)} ms`,
      `  parley --version                       ${fmt(result.medianMs.version)} ms  (${result.ratio.version.toFixed(2)}x node; target <= 2.5x)`,
      `  parley say (against a running hub)     ${fmt(result.medianMs.say)} ms  (${result.ratio.say.toFixed(2)}x node; target <= 4x)`,
      `  parley hook claude post-tool-use       ${fmt(result.medianMs.hook)} ms  (${result.ratio.hook.toFixed(2)}x node; target <= ${HOOK_TARGET_RATIO}x)`,
      `    hub found through the home (proof)   ${fmt(result.medianMs.hookHome)} ms  (${result.ratio.hookHome.toFixed(2)}x node; target <= ${HOOK_TARGET_RATIO}x)`,
      '',
    ].join('\n'),
  );
}
