import { fork, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './core.js';
import { HUB_NODE_FLAGS, PARLEY_BIN, hubUrl, rssMb } from './hub-process.js';
import type { SoakLoadJob, SoakLoadResult } from './soak-load.js';
import { peerSoak } from './soak-peers.js';

/**
 * The soak: a real hub process (`parley serve`) under N agents that each post
 * to and read #general over MCP HTTP in one long-lived session, for a while.
 * The hub's RSS is sampled from /proc every second: it must stay flat (the
 * target is at most 250 MB for 100 agents over 5 minutes). Run it alone with
 * `npm run soak -- --agents 100 --seconds 300`; `npm run bench` runs a shorter one.
 */

export interface SoakResult {
  agents: number;
  seconds: number;
  load: SoakLoadResult;
  rssMb: { start: number; peak: number; end: number; samples: number[] };
}

export async function soak(options: { agents: number; seconds: number; windowSeconds?: number }): Promise<SoakResult> {
  const home = tempDir('parley-soak-');
  // The soak measures memory, not the post limit: it sets its own, above what 100 agents post.
  fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ chat: { limits: { writesPerMinute: 1_000_000 } } }));
  const hub = spawn(process.execPath, [...HUB_NODE_FLAGS, PARLEY_BIN, 'serve', '--port', '0'], { env: { ...process.env, PARLEY_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const url = await hubUrl(hub);
    const admin = fs.readFileSync(path.join(home, 'admin.token'), 'utf8').trim();
    const tokens: string[] = [];
    for (let i = 0; i < options.agents; i++) tokens.push(await join(url, admin, `agent-${i}`));
    const pid = hub.pid!;
    const start = rssMb(pid);
    const samples: number[] = [];
    const sampler = setInterval(() => samples.push(rssMb(pid)), 1000);
    let load: SoakLoadResult;
    try {
      load = await runLoad({ url: `${url}/mcp`, tokens, seconds: options.seconds, windowSeconds: options.windowSeconds ?? 10 });
    } finally {
      clearInterval(sampler);
    }
    const end = rssMb(pid);
    return { agents: options.agents, seconds: options.seconds, load, rssMb: { start, peak: Math.max(start, end, ...samples), end, samples } };
  } finally {
    const exited = new Promise((resolve) => hub.once('exit', resolve));
    hub.kill('SIGTERM');
    await exited;
    fs.rmSync(home, { recursive: true, force: true });
  }
}

async function join(url: string, admin: string, handle: string): Promise<string> {
  const response = await fetch(`${url}/api/v1/participants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ handle, session: 'soak' }),
  });
  if (!response.ok) throw new Error(`join ${handle}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { token: string }).token;
}

function runLoad(job: SoakLoadJob): Promise<SoakLoadResult> {
  const child = fork(new URL('./soak-load.js', import.meta.url), { stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    child.once('message', (message: { ok: boolean; result?: SoakLoadResult; error?: string }) =>
      message.ok ? resolve(message.result!) : reject(new Error(`soak load: ${message.error}`)),
    );
    child.once('exit', (code) => reject(new Error(`soak load exited with ${code}`)));
    child.send(job);
  });
}

/**
 * `node dist/bench/soak.js [--agents N] [--seconds S]`: prints the figures and exits 1 if RSS went over 250 MB.
 * With `--peers`: the peer soak (soak-peers.ts), 30 agents on three linked hubs each killed once; exits 1 if a post was lost or held twice.
 */
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const arg = (name: string, fallback: number): number => {
    const at = process.argv.indexOf(`--${name}`);
    return at > 0 ? Number(process.argv[at + 1]) : fallback;
  };
  if (process.argv.includes('--peers')) await peerSoakMain(arg('agents', 30), arg('seconds', 300));
  else await hubSoakMain(arg);
}

async function peerSoakMain(agents: number, seconds: number): Promise<void> {
  const result = await peerSoak({ agents, seconds });
  const rss = Object.entries(result.rssMb).map(([name, m]) => `${name} ${m.lives.map((l) => `${l.from.toFixed(0)} → ${l.to.toFixed(0)} MB over ${l.seconds.toFixed(0)} s`).join(', then ')} (peak ${m.peak.toFixed(0)})`);
  const growth = Math.max(...Object.values(result.rssMb).map((m) => m.growth));
  const lines = [
    `soak --peers: ${result.agents} agents on 3 linked hubs x ${result.seconds} s over REST, each hub SIGKILLed once and started again`,
    `  kills: ${result.kills.map((k) => `${k.hub} at ${k.atSeconds} s, down ${k.downSeconds} s`).join('; ')}`,
    `  posts acknowledged ${result.posts.acknowledged}, refused or unanswered (a hub down) ${result.posts.failed}`,
    `  after all were back (${result.convergedSeconds.toFixed(1)} s): lost ${result.lost}, held twice ${result.duplicates}, the three histories ${result.identical ? 'identical' : 'DIFFER'}`,
    `  RSS, each life of each hub's process after 30 s of warming up: ${rss.join('; ')}`,
    `  largest growth over a life of at least 60 s: ${growth.toFixed(0)} MB (target <= 50 MB: ${growth <= 50 ? 'ok' : 'MISSED'})`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  fs.mkdirSync('bench-output', { recursive: true });
  fs.writeFileSync(path.join('bench-output', 'soak-peers.json'), `${JSON.stringify(result, null, 2)}\n`);
  process.exitCode = result.lost === 0 && result.duplicates === 0 && result.identical && growth <= 50 ? 0 : 1;
}

async function hubSoakMain(arg: (name: string, fallback: number) => number): Promise<void> {
  const result = await soak({ agents: arg('agents', 100), seconds: arg('seconds', 300), windowSeconds: arg('window', 30) });
  const { load, rssMb: rss } = result;
  const lines = [
    `soak: ${result.agents} agents x ${result.seconds} s over MCP HTTP (chat_post + chat_read each)`,
    `  posts ${load.posts} (${(load.posts / result.seconds).toFixed(0)}/s), reads ${load.reads}, errors ${load.errors}${load.firstError ? ` (first: ${load.firstError})` : ''}`,
    `  posts per window: ${load.postsPerWindow.join(', ')}`,
    `  post p50 ${load.postLatency.p50.toFixed(1)} ms, p99 ${load.postLatency.p99.toFixed(1)} ms, max ${load.postLatency.max.toFixed(1)} ms`,
    `  hub RSS: start ${rss.start.toFixed(0)} MB, peak ${rss.peak.toFixed(0)} MB, end ${rss.end.toFixed(0)} MB (target peak <= 250 MB: ${rss.peak <= 250 ? 'ok' : 'MISSED'})`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  fs.mkdirSync('bench-output', { recursive: true });
  fs.writeFileSync(path.join('bench-output', 'soak.json'), `${JSON.stringify(result, null, 2)}\n`);
  process.exitCode = rss.peak <= 250 && load.errors === 0 ? 0 : 1;
}
