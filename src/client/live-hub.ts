import fs from 'node:fs';
import path from 'node:path';
import { LOCK_INFO_FILENAME } from '../config/defaults.js';

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
  /** Its public key, which it proves it holds before a client sends it a credential (see hub-proof.ts). */
  key?: string;
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
    ...(typeof holder.key === 'string' && holder.key ? { key: holder.key } : {}),
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
 * The hub address a command was given: `url` (the `--url` flag), else
 * `PARLEY_URL`, with where it came from, for its caller to check (see
 * isHttpUrl). The user's own choice, used as given. Undefined when neither is
 * set: the command then talks to the hub running on its home, once that hub
 * has proved it is (see hub-proof.ts), and never to a default address.
 */
export function givenHubAddress(url: string | undefined, env: NodeJS.ProcessEnv): { url: string; from: '--url' | 'PARLEY_URL' } | undefined {
  if (url) return { url, from: '--url' };
  if (env.PARLEY_URL) return { url: env.PARLEY_URL, from: 'PARLEY_URL' };
  return undefined;
}

export function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}
