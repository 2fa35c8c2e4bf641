import path from 'node:path';
import { DEFAULT_STOP_TIMEOUT_MS, LOCK_INFO_FILENAME } from '../config/defaults.js';
import { resolveHome } from '../config/home.js';
import { ParleyError } from '../errors/parley-error.js';
import { liveHub, processAlive } from '../client/live-hub.js';
import type { CommandArgs, CommandRun } from './command.js';
import type { STOP_OPTIONS } from './command-options.js';
import { askHub } from './running-hub.js';

/**
 * `parley stop`: stops the hub running on this home the way Ctrl-C does
 * (SIGTERM: it commits what is pending, ends waits and streams, closes the
 * store) and returns once its process has exited, so the store is closed and
 * the home free when it does.
 */
export const STOP_HELP = `Usage: parley stop [--home DIR] [--timeout MS]

Stops the hub running on the home (default $PARLEY_HOME or ~/.parley)
gracefully, and waits until it has closed its store and released the home
(at most --timeout milliseconds, default ${DEFAULT_STOP_TIMEOUT_MS}). When no hub runs there it
says so and exits 0.
`;

/** How often the exit of the hub's process is checked while waiting. */
const EXIT_POLL_MS = 50;

export const stop: CommandRun<typeof STOP_OPTIONS> = { help: STOP_HELP, run: stopHub };

async function stopHub({ values }: CommandArgs<typeof STOP_OPTIONS>): Promise<number> {
  const timeoutMs = values.timeout === undefined ? DEFAULT_STOP_TIMEOUT_MS : Number(values.timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new ParleyError('INVALID_INPUT', `Invalid --timeout "${values.timeout}": give a whole number of milliseconds, e.g. --timeout 30000.`, { field: 'timeout' });
  }
  const home = resolveHome(values.home);
  const holder = liveHub(home);
  if (!holder) {
    process.stdout.write(`No hub is running on home ${home}; nothing to stop.\n`);
    return 0;
  }
  // The pid comes from a file: signal it only when the hub at the recorded address says it is that process.
  const answer = await askHub(holder, home);
  if (!answer.ok || answer.status.pid !== holder.pid) {
    const why = answer.ok ? `the hub at ${holder.url} is pid ${answer.status.pid}` : answer.reason;
    throw new ParleyError(
      'HOME_LOCKED',
      `${path.join(home, LOCK_INFO_FILENAME)} names pid ${holder.pid}, but ${why}, so it was not signalled; if that process is a stuck hub, end it yourself (kill ${holder.pid}).`,
    );
  }
  process.kill(holder.pid, 'SIGTERM');
  process.stderr.write(`parley: stopping the hub (pid ${holder.pid}) on home ${home}...\n`);
  const deadline = Date.now() + timeoutMs;
  while (processAlive(holder.pid)) {
    if (Date.now() >= deadline) {
      throw new ParleyError('HOME_LOCKED', `The hub (pid ${holder.pid}) has not stopped within ${timeoutMs} ms; it may still be finishing writes. Run "parley status" to check, or wait longer with --timeout.`);
    }
    await new Promise((resolve) => setTimeout(resolve, EXIT_POLL_MS));
  }
  process.stdout.write(`Parley hub stopped (pid ${holder.pid}); the store is closed and the home is free.\n`);
  return 0;
}
