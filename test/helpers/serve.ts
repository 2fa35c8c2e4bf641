import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The real hub as a user runs it: `bin/parley serve` in a child process with
 * its own home, on an ephemeral port. Every child started here is tracked;
 * call `stopHubs()` in afterEach (or afterAll) so none outlives its test.
 */
export const BIN = path.resolve(import.meta.dirname, '../../bin/parley');

const children: ChildProcess[] = [];

/** Tracks another child (a `parley tail`, say) so that stopHubs() ends it too. */
export function track(child: ChildProcess): ChildProcess {
  children.push(child);
  return child;
}

/** Kills (SIGKILL) every tracked child still running and waits for each to exit. */
export async function stopHubs(): Promise<void> {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

/** The environment of a child: this process's, without any PARLEY_* setting that would leak in, and the home. */
export function childEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  // A child given anything but an absolute path would make its home relative to the repository.
  if (typeof home !== 'string' || !path.isAbsolute(home)) throw new Error(`childEnv: the home must be an absolute path, got ${String(home)}`);
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('PARLEY_')) env[key] = value;
  return { ...env, PARLEY_HOME: home, ...extra };
}

export interface RunningHub {
  child: ChildProcess;
  output: () => string;
  /** The hub's base URL, as it printed it. */
  url: string;
  /** The admin token the hub wrote into its home (registers participants). */
  adminToken: () => string;
  /** Sends `signal` and resolves with the exit code once the hub has stopped. */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

/** Starts `parley serve` (on an ephemeral port unless given one) and resolves once it says it is running. */
export function startServe(home: string, options: { port?: string; env?: NodeJS.ProcessEnv; args?: string[] } = {}): Promise<RunningHub> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', options.port ?? '0', ...(options.args ?? [])], {
    env: childEnv(home, options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /API:\s+(http:\/\/127\.0\.0\.1:\d+)\/api\/v1/.exec(out)?.[1];
      if (out.includes('running') && url) {
        resolve({
          child,
          output: () => out,
          url,
          adminToken: () => fs.readFileSync(path.join(home, 'admin.token'), 'utf8').trim(),
          stop: (signal = 'SIGTERM') => {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited early with ${code}: ${out}`)));
  });
}

/** Runs the CLI against a hub, as a user in another terminal would. */
export function cliAt(home: string, url: string, extra: NodeJS.ProcessEnv = {}) {
  return (...args: string[]) =>
    spawnSync(process.execPath, [BIN, ...args], { env: childEnv(home, { PARLEY_URL: url, ...extra }), encoding: 'utf8', timeout: 20_000 });
}

/** Registers a participant through the admin route and returns its bearer token. */
export async function joinOver(hub: RunningHub, body: { handle: string; session?: string; profile?: Record<string, unknown> }): Promise<string> {
  const res = await fetch(`${hub.url}/api/v1/participants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${hub.adminToken()}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201 && res.status !== 200) throw new Error(`join ${body.handle} answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are JSON, read field by field in the assertions
export type Json = Record<string, any>;

/** One REST call to a running hub with a participant's token: the status and the JSON answer. */
export async function restCall(hub: RunningHub, token: string, method: string, route: string, body?: unknown): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${hub.url}/api/v1${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Json };
}
