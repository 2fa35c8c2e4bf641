import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { HUB_LOG_FILENAME } from '../config/defaults.js';
import { ParleyError } from '../errors/parley-error.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../home/private-home.js';
import { givenHubUrl, provenHubUrl, type HubChoice } from '../client/hub-address.js';
import { liveHub, type LiveHub } from '../client/live-hub.js';
import { PARLEY_BIN } from './parley-bin.js';

/**
 * A hub for a command that needs one: `parley mcp` and `parley install` start
 * `parley serve` on the home in the background when none runs there, with the
 * home's own settings (its config's port, port 0 included), and use it once
 * it has proved it is that home's hub. Several starting at once end with one
 * hub, because only one can take the home's lock.
 */
const START_TIMEOUT_MS = 20_000;
/** How often the home's lock file (or, for a given address, the hub) is looked at while a started hub comes up. */
const START_POLL_MS = 100;

/**
 * The hub's address: the one given (`--url`, `PARLEY_URL`), where a hub is
 * started when none answers and it is local; else the home's running hub, or
 * the one started on the home, once it has proved it is the home's hub.
 */
export async function ensureHub(choice: HubChoice, home: string): Promise<string> {
  const given = givenHubUrl(choice, process.env);
  if (given !== undefined) {
    await ensureHubAt(given, home);
    return given;
  }
  const started = liveHub(home) ? undefined : startServe(home, [], `no hub runs on home ${home}`);
  return provenHubUrl(home, await servingHub(home, started));
}

/** The hub holding the home once it says where it serves; HUB_CLOSED when the one started stopped first or none says so in time. */
async function servingHub(home: string, started: ChildProcess | undefined): Promise<LiveHub> {
  let exitedAt: number | undefined;
  let exitCode: number | null = null;
  started?.once('exit', (code) => {
    exitedAt = Date.now();
    exitCode = code;
  });
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const holder = liveHub(home);
    if (holder?.url) return holder;
    // A start that lost the race for the lock exits too; only with no hub left on the home (a poll later) did it fail.
    if (!holder && exitedAt !== undefined && Date.now() - exitedAt >= START_POLL_MS) {
      throw new ParleyError('HUB_CLOSED', `The hub started on home ${home} stopped before serving (exit code ${String(exitCode)}); see ${path.join(home, HUB_LOG_FILENAME)}.`);
    }
    if (Date.now() >= deadline) {
      throw new ParleyError('HUB_CLOSED', `No hub on home ${home} said where it serves within ${START_TIMEOUT_MS / 1000} s; see ${path.join(home, HUB_LOG_FILENAME)}.`);
    }
    await new Promise((resolve) => setTimeout(resolve, START_POLL_MS));
  }
}

async function healthy(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
    return response.ok;
  } catch {
    return false;
  }
}

/** A given address: used as given once a hub answers there; one is started on the home at its port when none does and it is local. */
async function ensureHubAt(url: string, home: string): Promise<void> {
  if (await healthy(url)) return;
  const target = new URL(url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname)) {
    throw new ParleyError('HUB_CLOSED', `No hub answers at ${url}, and a hub is only started here for a local address; start it there.`);
  }
  startServe(home, ['--port', target.port || '80'], `no hub answered at ${url}`);
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (await healthy(url)) return;
    await new Promise((resolve) => setTimeout(resolve, START_POLL_MS));
  }
  throw new ParleyError('HUB_CLOSED', `The hub did not come up at ${url} within ${START_TIMEOUT_MS / 1000} s; see ${path.join(home, HUB_LOG_FILENAME)}.`);
}

/** `parley serve` on the home, detached, its output in the home's hub log. */
function startServe(home: string, args: string[], why: string): ChildProcess {
  fs.mkdirSync(home, { recursive: true, mode: PRIVATE_DIR_MODE });
  const logFile = path.join(home, HUB_LOG_FILENAME);
  const log = fs.openSync(logFile, 'a', PRIVATE_FILE_MODE);
  const child = spawn(process.execPath, [PARLEY_BIN, 'serve', '--home', home, ...args], {
    detached: true,
    stdio: ['ignore', log, log],
    env: { ...process.env, PARLEY_HOME: home },
  });
  child.unref();
  fs.closeSync(log);
  process.stderr.write(`parley: ${why}; started one (pid ${child.pid}, log ${logFile}).\n`);
  return child;
}
