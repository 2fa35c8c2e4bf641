import fs from 'node:fs';
import path from 'node:path';
import { CoordinatorConfigSchema } from '../../src/config/schema.js';
import { Coordinator, type TurnResult } from '../../src/coordinator/coordinator.js';
import type { HubAccess } from '../../src/coordinator/hub-access.js';
import { InProcessHubAccess } from '../../src/coordinator/in-process-hub-access.js';
import type { Notice } from '../../src/coordinator/notices.js';
import { startHttpServer, type HttpServer } from '../../src/http/server.js';
import type { Actor } from '../../src/hub/actor.js';
import type { ParleyEvent } from '../../src/schema/event.js';
import { createSilentLogger, type Logger } from '../../src/util/logger.js';
import { closeServed, openTestHub, type TestHub } from './hub.js';

/**
 * The coordinator's test bench: a real hub on a real SQLite file in a temp
 * home, served on an ephemeral port, and stub adapters — tiny node scripts
 * written into the temp home, run with this node. The stub records each run
 * (start, end, pid, stdin, Parley's variables) as a JSON line in a log file,
 * and prints its answer. Its behaviour comes from STUB_* variables in the
 * adapter's config `env`:
 *   STUB_REPLY      what it prints (default "answer from @HANDLE")
 *   STUB_GATE       a file it waits for before answering (a run held open)
 *   STUB_SLEEP_MS   how long it sleeps before answering
 *   STUB_EXIT       exit with this code (and a line on stderr) instead
 *   STUB_CHILD      start a child that sleeps, in its process group, and record its pid
 *   STUB_HOOK       report a tool run through the agent hook route first (as an adapter's installed hooks do)
 *   STUB_POST       post this text in the thread itself first (over REST, with PARLEY_TOKEN), as an
 *                   adapter with Parley's MCP tools does, then print its answer too
 *   STUB_DETACHED   leave behind a detached child (a session of its own, as setsid makes): once this
 *                   file exists, it calls /whoami with the run's PARLEY_TOKEN, records the status and ends
 * Each start record holds the adapter's whole environment.
 */
const STUB = `import fs from 'node:fs';
import { spawn } from 'node:child_process';
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const stdin = Buffer.concat(chunks).toString('utf8');
const log = (record) => fs.appendFileSync(process.env.STUB_LOG, JSON.stringify(record) + '\\n');
const env = { ...process.env };
let child;
if (process.env.STUB_CHILD) child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000)'], { stdio: 'ignore' });
let detached;
if (process.env.STUB_DETACHED) {
  const later = "const fs = require('fs'); (async () => {"
    + " while (!fs.existsSync(process.env.STUB_DETACHED)) await new Promise((r) => setTimeout(r, 10));"
    + " const res = await fetch(process.env.PARLEY_URL + '/api/v1/whoami', { headers: { authorization: 'Bearer ' + process.env.PARLEY_TOKEN } });"
    + " fs.appendFileSync(process.env.STUB_LOG, JSON.stringify({ at: 'detached', time: Date.now(), pid: process.pid, status: res.status }) + '\\\\n');"
    + " })();";
  detached = spawn(process.execPath, ['-e', later], { detached: true, stdio: 'ignore' });
  detached.unref();
}
log({ at: 'start', time: Date.now(), pid: process.pid, child: child?.pid, detached: detached?.pid, stdin, env });
if (process.env.STUB_GATE) {
  while (!fs.existsSync(process.env.STUB_GATE)) await new Promise((r) => setTimeout(r, 10));
}
if (process.env.STUB_HOOK) {
  const res = await fetch(process.env.PARLEY_URL + '/api/v1/agent/hook', {
    method: 'POST',
    headers: { authorization: 'Bearer ' + process.env.PARLEY_TOKEN, 'content-type': 'application/json' },
    body: JSON.stringify({ event: 'tool' }),
  });
  log({ at: 'hooked', time: Date.now(), pid: process.pid, status: res.status });
}
if (process.env.STUB_POST) {
  const res = await fetch(process.env.PARLEY_URL + '/api/v1/threads/' + encodeURIComponent(process.env.PARLEY_THREAD) + '/messages', {
    method: 'POST',
    headers: { authorization: 'Bearer ' + process.env.PARLEY_TOKEN, 'content-type': 'application/json' },
    body: JSON.stringify({ text: process.env.STUB_POST }),
  });
  log({ at: 'posted', time: Date.now(), pid: process.pid, status: res.status });
}
if (process.env.STUB_SLEEP_MS) await new Promise((r) => setTimeout(r, Number(process.env.STUB_SLEEP_MS)));
log({ at: 'end', time: Date.now(), pid: process.pid });
if (process.env.STUB_EXIT) {
  process.stderr.write('stub failed on purpose\\n');
  process.exit(Number(process.env.STUB_EXIT));
}
process.stdout.write(process.env.STUB_REPLY ?? 'answer from @' + process.env.PARLEY_HANDLE);
`;

export interface StubRun {
  at: 'start' | 'end' | 'posted' | 'hooked' | 'detached';
  time: number;
  pid: number;
  child?: number;
  /** The pid of the child it left detached (STUB_DETACHED). */
  detached?: number;
  /** The answer the hub gave a call (STUB_POST, STUB_HOOK, STUB_DETACHED). */
  status?: number;
  stdin?: string;
  env?: Record<string, string>;
}

/** Writes the stub adapter into `dir`; returns its argv and the log it writes. */
export function writeStub(dir: string, name = 'stub'): { command: string[]; log: string } {
  const script = path.join(dir, `${name}.mjs`);
  fs.writeFileSync(script, STUB);
  return { command: [process.execPath, script], log: path.join(dir, `${name}.log`) };
}

export function stubRuns(log: string): StubRun[] {
  if (!fs.existsSync(log)) return [];
  return fs
    .readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as StubRun);
}

type AgentSpec = { env?: Record<string, string>; timeoutSeconds?: number };

export interface Bench {
  t: TestHub;
  server: HttpServer;
  human: Actor;
  dir: string;
  /** One stub log per agent handle. */
  logs: Record<string, string>;
  coordinator: Coordinator;
  notices: Array<Notice & { session: string }>;
  turns: Array<{ handle: string; result: TurnResult }>;
  /** Resolves with the first notice (past or future) that matches. */
  notice(match: (n: Notice) => boolean): Promise<Notice>;
  /** Resolves at the first turn (from now on) of `handle` that ends with `result`. */
  turn(handle: string, result: TurnResult): Promise<void>;
  /** Stops the coordinator and starts a new one on the same hub (a restart). */
  restart(): Promise<void>;
  /** Stops the coordinator only. */
  stopCoordinator(): Promise<void>;
  close(): Promise<void>;
}

export interface BenchOptions {
  /** The coordinator's clock (epoch ms). */
  now?: () => number;
  /** How the coordinator reaches the hub, made from the real one. */
  hubAccess?: (hubAccess: HubAccess) => HubAccess;
  /** The environment adapters inherit, given the temp home (default: this process's). */
  env?: (home: string) => NodeJS.ProcessEnv;
  /** Where the coordinator logs (default: nowhere). */
  logger?: Logger;
}

/**
 * A hub with a human, the given agents (each with its own stub log), and a
 * coordinator serving them. `coordinator` is extra coordinator config.
 */
export async function openBench(agents: Record<string, AgentSpec>, coordinator: Record<string, unknown> = {}, options: BenchOptions = {}): Promise<Bench> {
  const { now } = options;
  const t = await openTestHub();
  const server = await startHttpServer({ hub: t.hub, host: '127.0.0.1', port: 0, logger: createSilentLogger() });
  const human = await t.hub.join({ handle: 'human', profile: { kind: 'human' } });
  const dir = t.home;
  const logs: Record<string, string> = {};
  const agentConfig: Record<string, unknown> = {};
  for (const [handle, spec] of Object.entries(agents)) {
    const stub = writeStub(dir, `stub-${handle}`);
    logs[handle] = stub.log;
    // "$DIR" in a stub variable is the temp home (where a test puts a gate file, say).
    const env = Object.fromEntries(Object.entries(spec.env ?? {}).map(([k, v]) => [k, v.replaceAll('$DIR', dir)]));
    agentConfig[handle] = { command: stub.command, env: { STUB_LOG: stub.log, ...env }, ...(spec.timeoutSeconds === undefined ? {} : { timeoutSeconds: spec.timeoutSeconds }) };
  }
  const config = CoordinatorConfigSchema.parse({ ...coordinator, agents: agentConfig });
  const notices: Bench['notices'] = [];
  const turns: Bench['turns'] = [];
  const waiters = new Set<() => void>();
  const poke = (): void => {
    for (const waiter of [...waiters]) waiter();
  };
  const start = async (): Promise<Coordinator> => {
    const hubAccess = new InProcessHubAccess(t.hub, server.url);
    const started = await Coordinator.start({
      hubAccess: options.hubAccess ? options.hubAccess(hubAccess) : hubAccess,
      config,
      ...(now ? { now } : {}),
      ...(options.env ? { env: options.env(t.home) } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    });
    started.onNotice((n) => {
      notices.push(n);
      poke();
    });
    started.onTurn((turn) => {
      turns.push(turn);
      poke();
    });
    return started;
  };
  const until = (check: () => boolean): Promise<void> =>
    new Promise((resolve) => {
      const waiter = (): void => {
        if (!check()) return;
        waiters.delete(waiter);
        resolve();
      };
      waiters.add(waiter);
      waiter();
    });
  let running: Coordinator | undefined = await start();
  const bench: Bench = {
    t,
    server,
    human,
    dir,
    logs,
    coordinator: running,
    notices,
    turns,
    notice: async (match) => {
      await until(() => notices.some(match));
      return notices.find(match)!;
    },
    turn: (handle, result) => {
      const from = turns.length;
      return until(() => turns.slice(from).some((x) => x.handle === handle && x.result === result));
    },
    restart: async () => {
      await running?.stop();
      running = await start();
      bench.coordinator = running;
    },
    stopCoordinator: async () => {
      await running?.stop();
      running = undefined;
    },
    close: async () => {
      await running?.stop();
      await closeServed(t, server);
    },
  };
  return bench;
}

/** The messages of a thread, oldest first, as the human sees them. */
export async function messagesIn(human: Actor, thread: string): Promise<ParleyEvent[]> {
  return (await human.history({ thread, limit: 1000 })).events.filter((e) => e.type === 'message');
}

/**
 * The hub access, but holding no one present during a run: a participant the
 * coordinator runs then looks as absent as before, so what arrives during the
 * run is not left to a live session of its own, and only the one-run-at-a-time
 * guard stands between it and a second run.
 */
export function holdingNoOne(hubAccess: HubAccess): HubAccess {
  return {
    url: hubAccess.url,
    home: hubAccess.home,
    join: async (...args) => ({ ...(await hubAccess.join(...args)), hold: async () => async () => undefined }),
    watch: (session, wake) => hubAccess.watch(session, wake),
    close: () => hubAccess.close(),
  };
}
