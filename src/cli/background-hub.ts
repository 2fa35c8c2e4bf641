import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { HUB_LOG_FILENAME } from '../config/defaults.js';
import { ParleyError } from '../errors/parley-error.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../store/private-home.js';
import { PARLEY_BIN } from './parley-bin.js';

/**
 * A hub for a command that needs one: `parley mcp` and `parley install` start
 * `parley serve` on the home in the background when no hub answers at a local
 * address. Several starting at once end with one hub, because only one can
 * take the home's lock.
 */
const START_TIMEOUT_MS = 20_000;

async function healthy(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
    return response.ok;
  } catch {
    return false;
  }
}

/** Starts `parley serve` on the home, detached, unless a hub answers; resolves once one does. */
export async function ensureHub(url: string, home: string): Promise<void> {
  if (await healthy(url)) return;
  const target = new URL(url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname)) {
    throw new ParleyError('HUB_CLOSED', `No hub answers at ${url}, and a hub is only started here for a local address; start it there.`);
  }
  fs.mkdirSync(home, { recursive: true, mode: PRIVATE_DIR_MODE });
  const log = fs.openSync(path.join(home, HUB_LOG_FILENAME), 'a', PRIVATE_FILE_MODE);
  const child = spawn(process.execPath, [PARLEY_BIN, 'serve', '--home', home, '--port', target.port || '80'], {
    detached: true,
    stdio: ['ignore', log, log],
    env: { ...process.env, PARLEY_HOME: home },
  });
  child.unref();
  fs.closeSync(log);
  process.stderr.write(`parley: no hub answered at ${url}; started one (pid ${child.pid}, log ${path.join(home, HUB_LOG_FILENAME)}).\n`);
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (await healthy(url)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new ParleyError('HUB_CLOSED', `The hub did not come up at ${url} within ${START_TIMEOUT_MS / 1000} s; see ${path.join(home, HUB_LOG_FILENAME)}.`);
}
