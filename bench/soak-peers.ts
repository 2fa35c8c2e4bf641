/**
 * The peer soak (`npm run soak -- --peers`): three `parley serve` processes
 * linked as docs/peers.md tells an operator, 30 agents (10 on each) posting
 * to #general over REST for a while, and each hub SIGKILLed once at a random
 * moment and started again on its home. At the end, once every hub is back:
 * every post a hub acknowledged (201) is held by all three, none twice, the
 * three hold the same set of ids, and each hub's RSS stayed flat. Retention is
 * set to keep every post: it is what the soak counts.
 */

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { tempDir } from './core.js';
import { HUB_NODE_FLAGS, PARLEY_BIN, hubUrl, rssMb } from './hub-process.js';

export interface PeerSoakResult {
  agents: number;
  seconds: number;
  posts: { acknowledged: number; failed: number };
  kills: Array<{ hub: string; atSeconds: number; downSeconds: number }>;
  /** Once all were back: acknowledged posts missing from some hub, ids held twice by a hub, whether the three sets are one. */
  lost: number;
  duplicates: number;
  identical: boolean;
  convergedSeconds: number;
  /**
   * Each hub's RSS: its peak, and its growth over each life of its process
   * (from 30 s after it started, so as not to count its warming up, to its
   * kill or the end), the larger of those at least 60 s long.
   */
  rssMb: Record<string, { peak: number; growth: number; lives: Array<{ from: number; to: number; seconds: number }> }>;
}

interface SoakHub {
  name: string;
  home: string;
  peerPort: number;
  child: ChildProcess;
  url: string;
  admin: string;
  tokens: string[];
  /** RSS samples: when (s since the load began), MB, and which life of the process. */
  rss: Array<{ at: number; mb: number; life: number }>;
  lives: number;
  startedAt: number[];
}

/** An RSS sample taken this soon after a start is warming up. */
const WARM_UP_SECONDS = 30;
/** A life shorter than this after warming up is too short to tell growth from noise. */
const MIN_LIFE_SECONDS = 60;

const NAMES = ['hub-a', 'hub-b', 'hub-c'];

export async function peerSoak(options: { agents: number; seconds: number }): Promise<PeerSoakResult> {
  const hubs: SoakHub[] = [];
  // Should this process die, its hubs go with it.
  const killAll = (): void => hubs.forEach((hub) => hub.child?.kill('SIGKILL'));
  process.once('exit', killAll);
  try {
    for (const name of NAMES) {
      const home = tempDir(`parley-soak-${name}-`);
      fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ chat: { limits: { writesPerMinute: 1_000_000 } }, retention: { messages: 1_000_000 }, peers: { name, sync: { intervalSeconds: 5 } } }));
      hubs.push({ name, home, peerPort: await freePort(), child: undefined!, url: '', admin: '', tokens: [], rss: [], lives: 0, startedAt: [] });
    }
    for (const hub of hubs) await start(hub);
    for (const [i, hub] of hubs.entries()) {
      for (let n = i; n < options.agents; n += hubs.length) hub.tokens.push(await join(hub, `agent-${n}`));
    }
    link(hubs);
    await waitFor(async () => (await Promise.all(hubs.map((hub) => linkedCount(hub)))).every((n) => n === hubs.length - 1), 30_000, 'the three hubs to link');

    const acknowledged = new Set<string>();
    let failed = 0;
    let stopping = false;
    const started = performance.now();
    for (const hub of hubs) hub.startedAt[hub.lives - 1] = 0;
    const agents = hubs.flatMap((hub) => hub.tokens.map((token, i) => ({ hub, token, i })));
    const load = Promise.all(
      agents.map(async ({ hub, token, i }) => {
        for (let n = 0; !stopping; n++) {
          const id = await post(hub, token, `agent ${hub.name}/${i} post ${n}`).catch(() => undefined);
          if (id) acknowledged.add(id);
          else failed += 1;
          // About 3 posts a second each: 90 a second in all.
          await sleep(id ? 300 : 500);
        }
      }),
    );
    const sampler = setInterval(() => {
      for (const hub of hubs) {
        try {
          if (hub.child.pid && hub.child.exitCode === null && hub.child.signalCode === null) hub.rss.push({ at: (performance.now() - started) / 1000, mb: rssMb(hub.child.pid), life: hub.lives });
        } catch {
          // Killed between the check and the read: sampled again once it runs.
        }
      }
    }, 1000);
    // Each hub is killed once, at a random moment of its own third of the run, and started again after 2 to 10 s.
    const kills: PeerSoakResult['kills'] = [];
    const chaos = (async () => {
      for (const [i, hub] of hubs.entries()) {
        const third = options.seconds / hubs.length;
        const at = i * third + third * (0.2 + Math.random() * 0.5);
        await sleep(Math.max(0, at * 1000 - (performance.now() - started)));
        const down = 2 + Math.random() * 8;
        hub.child.kill('SIGKILL');
        await new Promise((resolve) => hub.child.once('exit', resolve));
        await sleep(down * 1000);
        await start(hub);
        hub.startedAt[hub.lives - 1] = (performance.now() - started) / 1000;
        kills.push({ hub: hub.name, atSeconds: Math.round(at), downSeconds: Math.round(down) });
      }
    })();
    await sleep(options.seconds * 1000);
    stopping = true;
    await chaos;
    await load;
    clearInterval(sampler);

    // Converged: every hub holds every acknowledged post, and the same ids.
    const convergeStart = performance.now();
    let held: string[][] = [];
    await waitFor(
      async () => {
        held = await Promise.all(hubs.map((hub) => generalIds(hub)));
        const sets = held.map((ids) => new Set(ids));
        return [...acknowledged].every((id) => sets.every((set) => set.has(id))) && sets.every((set) => set.size === sets[0]!.size);
      },
      120_000,
      'every hub to hold every acknowledged post',
    ).catch(() => undefined);
    const convergedSeconds = (performance.now() - convergeStart) / 1000;
    const sets = held.map((ids) => new Set(ids));
    const lost = [...acknowledged].filter((id) => !sets.every((set) => set.has(id))).length;
    const duplicates = held.reduce((sum, ids) => sum + ids.length - new Set(ids).size, 0);
    const identical = sets.every((set) => set.size === sets[0]!.size && [...set].every((id) => sets[0]!.has(id)));
    const rss = Object.fromEntries(hubs.map((hub) => [hub.name, memoryOf(hub)]));
    return { agents: options.agents, seconds: options.seconds, posts: { acknowledged: acknowledged.size, failed }, kills, lost, duplicates, identical, convergedSeconds, rssMb: rss };
  } finally {
    process.off('exit', killAll);
    for (const hub of hubs) {
      if (hub.child && hub.child.exitCode === null) {
        const exited = new Promise((resolve) => hub.child.once('exit', resolve));
        hub.child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(hub.home, { recursive: true, force: true });
    }
  }
}

function memoryOf(hub: SoakHub): PeerSoakResult['rssMb'][string] {
  const lives = Array.from({ length: hub.lives }, (_, i) => {
    const warm = hub.rss.filter((s) => s.life === i + 1 && s.at >= (hub.startedAt[i] ?? 0) + WARM_UP_SECONDS);
    const [first, last] = [warm[0], warm[warm.length - 1]];
    return first && last ? { from: first.mb, to: last.mb, seconds: last.at - first.at } : { from: 0, to: 0, seconds: 0 };
  });
  const long = lives.filter((life) => life.seconds >= MIN_LIFE_SECONDS);
  return { peak: Math.max(...hub.rss.map((s) => s.mb)), growth: Math.max(0, ...long.map((life) => life.to - life.from)), lives };
}

async function start(hub: SoakHub): Promise<void> {
  hub.lives += 1;
  hub.child = spawn(process.execPath, [...HUB_NODE_FLAGS, PARLEY_BIN, 'serve', '--port', '0', '--peer-port', String(hub.peerPort), '--peer-host', '127.0.0.1'], {
    env: { ...process.env, PARLEY_HOME: hub.home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  hub.url = await hubUrl(hub.child);
  hub.admin = fs.readFileSync(path.join(hub.home, 'admin.token'), 'utf8').trim();
}

/** The five steps of docs/peers.md: B and C say who they are, A's roster lists them and is signed, B and C import it and add A. */
function link(hubs: SoakHub[]): void {
  const [a, ...others] = hubs;
  const cli = (hub: SoakHub, ...args: string[]): string => {
    const run = spawnSync(process.execPath, [PARLEY_BIN, ...args], { env: { ...process.env, PARLEY_HOME: hub.home, PARLEY_URL: hub.url }, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`parley ${args.join(' ')} on ${hub.name}: ${run.stderr}`);
    return run.stdout;
  };
  const selves = hubs.map((hub) => JSON.parse(cli(hub, 'peer', 'self', '--json')) as { addrs: string[] });
  cli(a!, 'roster', 'init', '--org', 'soak');
  for (const [i, hub] of others.entries()) {
    const file = path.join(a!.home, `${hub.name}.json`);
    fs.writeFileSync(file, JSON.stringify(selves[i + 1]));
    cli(a!, 'roster', 'add', '--from', file);
  }
  cli(a!, 'roster', 'sign');
  for (const hub of others) {
    const file = path.join(hub.home, 'soak-roster.json');
    fs.copyFileSync(path.join(a!.home, 'roster.json'), file);
    cli(hub, 'roster', 'import', file);
    cli(hub, 'peer', 'add', selves[0]!.addrs[0]!);
  }
}

async function api(hub: SoakHub, token: string, method: string, route: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${hub.url}/api/v1${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

async function join(hub: SoakHub, handle: string): Promise<string> {
  const { status, json } = await api(hub, hub.admin, 'POST', '/participants', { handle, profile: { kind: 'agent' } });
  if (status !== 201) throw new Error(`join ${handle} on ${hub.name}: ${status} ${JSON.stringify(json)}`);
  return json.token as string;
}

/** The post's id once its hub acknowledged it (201); undefined otherwise. */
async function post(hub: SoakHub, token: string, text: string): Promise<string | undefined> {
  const { status, json } = await api(hub, token, 'POST', '/threads/general/messages', { text });
  return status === 201 ? (json.id as string) : undefined;
}

async function generalIds(hub: SoakHub): Promise<string[]> {
  const ids: string[] = [];
  for (let after = 0; ; ) {
    const { status, json } = await api(hub, hub.tokens[0]!, 'GET', `/threads/general/history?after=${after}&limit=500`);
    if (status !== 200) throw new Error(`history on ${hub.name}: ${status}`);
    const events = json.events as Array<{ id: string; seq: number; type: string }>;
    if (events.length === 0) return ids;
    ids.push(...events.filter((e) => e.type === 'message').map((e) => e.id));
    after = events[events.length - 1]!.seq;
  }
}

async function linkedCount(hub: SoakHub): Promise<number> {
  const { json } = await api(hub, hub.admin, 'GET', '/hub/peers');
  return (json.peers as Array<{ state: string }>).filter((peer) => peer.state === 'connected').length;
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (performance.now() < until) {
    if (await check().catch(() => false)) return;
    await sleep(500);
  }
  throw new Error(`timed out waiting for ${what}`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A TCP port free on loopback now (each hub keeps its peer port across its restart, so the others redial it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
