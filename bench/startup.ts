import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './core.js';
import { HUB_NODE_FLAGS, PARLEY_BIN, hubUrl } from './hub-process.js';

/**
 * Start-up cost of the CLI, which people type and hooks run on every tool
 * call: the median wall time of `node -e 0`, `parley --version` and `parley
 * say` against a running hub, measured in the same run and interleaved (so a
 * busy moment of the machine weighs on all three alike), with the ratios to
 * bare Node. Each command runs the way bin/parley runs it: this Node, with
 * the flags of its first line.
 */
export interface StartupResult {
  runs: number;
  medianMs: { node: number; version: number; say: number };
  ratio: { version: number; say: number };
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Wall time of one process from spawn to exit, in ms; a failed run is an error, not a sample. */
function timed(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code === 0) resolve(ms);
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
    const commands = {
      node: () => timed(['-e', '0'], env),
      version: () => timed([...HUB_NODE_FLAGS, PARLEY_BIN, '--version'], cliEnv),
      say: () => timed([...HUB_NODE_FLAGS, PARLEY_BIN, 'say', 'general', 'start-up sample'], cliEnv),
    };
    // One untimed round warms the file cache.
    for (const run of Object.values(commands)) await run();
    const samples = { node: [] as number[], version: [] as number[], say: [] as number[] };
    for (let i = 0; i < options.runs; i++) {
      for (const name of ['node', 'version', 'say'] as const) samples[name].push(await commands[name]());
    }
    const medianMs = { node: median(samples.node), version: median(samples.version), say: median(samples.say) };
    return { runs: options.runs, medianMs, ratio: { version: medianMs.version / medianMs.node, say: medianMs.say / medianMs.node } };
  } finally {
    const exited = new Promise((resolve) => hub.once('exit', resolve));
    hub.kill('SIGTERM');
    await exited;
    fs.rmSync(home, { recursive: true, force: true });
  }
}

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
      '',
    ].join('\n'),
  );
}
