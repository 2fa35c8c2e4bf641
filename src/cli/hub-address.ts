import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_URL, LOCK_INFO_FILENAME } from '../config/defaults.js';
import { resolveHome } from '../config/home.js';
import { ParleyError } from '../errors/parley-error.js';

/**
 * Which hub a command talks to: `--url`, else `PARLEY_URL`, else the hub
 * running on the command's home (its lock file says where it serves), else
 * the default address. So `parley join X --home DIR` reaches DIR's hub on
 * whatever port it took.
 */
export interface LiveHub {
  pid: number;
  startedAt?: string;
  /** Where it serves; absent while it is still starting. */
  url?: string;
}

/** The options a command was given that choose the hub (`--home`, `--url`), as parseArgs returns them. */
export interface HubChoice {
  home?: unknown;
  url?: unknown;
}

export function hubUrl(choice: HubChoice = {}, env: NodeJS.ProcessEnv = process.env): string {
  if (typeof choice.url === 'string' && choice.url) return trimSlash(checkedUrl(choice.url, '--url'));
  if (env.PARLEY_URL) return trimSlash(checkedUrl(env.PARLEY_URL, 'PARLEY_URL'));
  const home = resolveHome(typeof choice.home === 'string' ? choice.home : undefined, env);
  return trimSlash(liveHub(home)?.url ?? DEFAULT_URL);
}

/** A hub address someone typed: an http(s) URL, or INVALID_INPUT naming where it came from. */
function checkedUrl(value: string, field: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new ParleyError('INVALID_INPUT', `Invalid ${field}: "${value}" is not an http:// or https:// URL; give the hub's address, e.g. http://127.0.0.1:7420.`, { field });
  }
  return value;
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

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
