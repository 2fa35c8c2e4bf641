import { loadConfig, resolveHome } from '../config/load.js';
import { Coordinator } from '../coordinator/coordinator.js';
import { RestHubAccess } from '../coordinator/rest-hub-access.js';
import { ParleyError } from '../errors/parley-error.js';
import { readAdminToken } from '../home/admin-token.js';
import { createStderrLogger } from '../util/logger.js';
import { givenHubUrl, hubUrl } from '../client/hub-address.js';
import type { CommandArgs, CommandRun } from './command.js';
import type { COORDINATE_OPTIONS } from './command-options.js';
import { parseSets } from './serve.js';

const HELP = `Usage: parley coordinate [--home DIR] [--config FILE] [--url URL] [--set KEY=VALUE ...]

Runs the coordinator beside the hub running on the home, until SIGINT,
SIGTERM or SIGHUP: for each participant with an adapter in coordinator.agents, when a
message is addressed to it (a DM, "to" it, an @mention, a request), it is
prodded, or a human writes to all in a thread with invited_auto on where it is
invited — and it has no session of its own open — it runs the adapter with the
new messages on stdin and posts what it prints as that participant, in that
thread (a request gets a response). One run at a time per participant, a
timeout (coordinator.timeoutSeconds), a loop guard (coordinator.maxDepth), a cap
on runs per agent and per author (coordinator.maxRunsPerHour), and a token per
run, revoked as it ends; muted, paused, done and expired threads are not
answered. Every start, finish, failure, timeout and refusal is posted by
@coordinator in #coordinator; a refusal by the loop guard or the cap is also
told to its author in the thread.

It acts for the participants with tokens it gets with the home's admin token,
so it must run as the hub's own user. "parley serve" runs the same coordinator
inside the hub when coordinator.enabled is true.

Example config (<home>/config.json):
  { "coordinator": { "agents": {
      "coder-1": { "command": ["claude", "-p"], "cwd": "/path/to/project" },
      "helper":  { "command": ["node", "/path/to/answer.mjs"], "timeoutSeconds": 60 } } } }
`;

/** `parley coordinate`: the coordinator in a process of its own, against the home's running hub. */
export const coordinate: CommandRun<typeof COORDINATE_OPTIONS> = { help: HELP, run: runCoordinator };

async function runCoordinator({ values }: CommandArgs<typeof COORDINATE_OPTIONS>): Promise<number> {
  const home = resolveHome(values.home);
  const config = loadConfig({ home, configFile: values.config, flags: parseSets(values.set ?? []) });
  if (Object.keys(config.coordinator.agents).length === 0) {
    throw new ParleyError('CONFIG_INVALID', 'Invalid config key "coordinator.agents": it names no participant, so there is nothing to coordinate; add an adapter, e.g. {"coder-1": {"command": ["claude", "-p"]}}.', {
      field: 'coordinator.agents',
    });
  }
  if (config.coordinator.sessions.length === 0) {
    throw new ParleyError('CONFIG_INVALID', 'Invalid config key "coordinator.sessions": it names no session to answer in; give at least one, e.g. ["default"].', {
      field: 'coordinator.sessions',
    });
  }
  if (config.coordinator.enabled) {
    throw new ParleyError('CONFLICT', 'The hub of this home runs the coordinator itself (coordinator.enabled is true); a second one would answer every message twice. Run one or the other.', {
      field: 'coordinator.enabled',
    });
  }
  const url = await hubUrl(values);
  const given = givenHubUrl(values, process.env) !== undefined;
  let provenFor = readAdminToken(home);
  if (!provenFor) {
    throw new ParleyError('HUB_CLOSED', `No running hub has written its admin token in ${home}; start one with "parley serve" (same --home).`);
  }
  // A hub writes a new admin token at each start: after a restart the coordinator takes it, once the
  // hub at its address has proved again that it is this home's (a token never goes to another process).
  const adminToken = async (): Promise<string> => {
    const token = readAdminToken(home);
    if (!token) throw new ParleyError('HUB_CLOSED', `No running hub has written its admin token in ${home}; start one with "parley serve" (same --home).`);
    if (token !== provenFor) {
      if (!given && (await hubUrl(values)) !== url) {
        throw new ParleyError('HUB_CLOSED', `The hub of home ${home} was restarted at another address than ${url}; restart "parley coordinate".`);
      }
      provenFor = token;
    }
    return token;
  };
  // Notices go to stdout; the log (stderr) keeps only what went wrong.
  const logger = createStderrLogger('warn');
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
    // The terminal closed: stop as cleanly, or the adapters' process groups would outlive it with a participant's token.
    process.once('SIGHUP', () => resolve());
  });
  const coordinator = await Coordinator.start({ hubAccess: new RestHubAccess(url, home, adminToken, config.coordinator.pollMs, logger), config: config.coordinator, logger });
  coordinator.onNotice((notice) => process.stdout.write(`[${notice.session}] ${notice.text}\n`));
  const handles = Object.keys(config.coordinator.agents).map((h) => `@${h}`).join(', ');
  process.stdout.write(
    `Parley coordinator running (pid ${process.pid}) at ${url} for ${handles} in session${config.coordinator.sessions.length === 1 ? '' : 's'} ${config.coordinator.sessions.join(', ')}; ` +
      `its notices are in #${config.coordinator.channel}. Stop: Ctrl-C.\n`,
  );
  await stopped;
  await coordinator.stop();
  process.stdout.write('Parley coordinator stopped.\n');
  return 0;
}
