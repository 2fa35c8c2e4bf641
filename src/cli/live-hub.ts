import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_URL, LOCK_INFO_FILENAME } from '../config/defaults.js';
import { resolveHome } from '../config/home.js';

/**
 * The hub running on a home, from the lock file it writes. Node's built-ins
 * only, so that `parley hook` (run on every tool call) can find its hub
 * without loading the error model and its schemas.
 */
export interface LiveHub {
  pid: number;
  startedAt?: string;
  /** Where it serves; absent while it is still starting. */
  url?: string;
}

/**
 * The hub holding `home`, from the lock file it writes, when its process is
 * still alive. A hub killed outright leaves the file behind; its dead pid
 * tells it apart.
 */
export function liveHub(home: string): LiveHub | undefined {
  let holder: Partial<LiveHub>;
  try {
    holder = JSON.parse(fs.readFileSync(path.join(home, LOCK_INFO_FILENAME), 'utf8')) as Partial<LiveHub>;
  } catch {
    return undefined;
  }
  if (typeof holder.pid !== 'number' || !Number.isInteger(holder.pid) || holder.pid <= 0 || !processAlive(holder.pid)) return undefined;
  return {
    pid: holder.pid,
    ...(typeof holder.startedAt === 'string' ? { startedAt: holder.startedAt } : {}),
    ...(typeof holder.url === 'string' && holder.url ? { url: holder.url } : {}),
  };
}

/** Whether a process runs (signal 0 probes without signalling); an exited child not yet reaped counts as gone. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // Linux: a zombie ("Z") has exited; its parent has just not collected it yet.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/**
 * The hub address a command was given or finds: `url` (the `--url` flag),
 * else `PARLEY_URL`, else the hub running on the home, else the default. A
 * typed address comes with where it came from (`from`), for its caller to
 * check (see isHttpUrl); one the hub recorded or the default needs no check.
 */
export function hubAddress(choice: { url?: string | undefined; home?: string | undefined }, env: NodeJS.ProcessEnv): { url: string; from?: '--url' | 'PARLEY_URL' } {
  if (choice.url) return { url: choice.url, from: '--url' };
  if (env.PARLEY_URL) return { url: env.PARLEY_URL, from: 'PARLEY_URL' };
  return { url: liveHub(resolveHome(choice.home, env))?.url ?? DEFAULT_URL };
}

export function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}
