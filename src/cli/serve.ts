import path from 'node:path';
import { loadConfig, resolveHome } from '../config/load.js';
import { ParleyError } from '../errors/parley-error.js';
import { Coordinator } from '../coordinator/coordinator.js';
import { InProcessHubAccess } from '../coordinator/in-process-hub-access.js';
import { openHub } from '../hub/index.js';
import { createAdminCredential } from '../home/admin-token.js';
import { webPageBuilt } from '../http/web.js';
import { startHttpServer } from '../http/server.js';
import { startLocalSocket, type LocalSocket } from '../local-socket/local-socket-server.js';
import { pendingDraftNoticeOf } from '../trust/roster-draft.js';
import { createStderrLogger } from '../util/logger.js';
import type { CommandArgs, CommandRun } from './command.js';
import type { SERVE_OPTIONS } from './command-options.js';

const HELP = `Usage: parley serve [--home DIR] [--config FILE] [--host HOST] [--port PORT] [--roster FILE] [--set KEY=VALUE ...]

Runs the hub: takes the home's single-writer lock, opens the store and keeps it
until SIGINT or SIGTERM, then commits what is pending and closes cleanly.

  --roster FILE     The signed roster (wins over PARLEY_ROSTER and
                    trust.rosterPath; default <home>/roster.json when it
                    exists, else local mode). A file newer than the roster the
                    hub already holds is accepted if an admin signed it; an
                    older or changed same-version file is refused (logged) and
                    the held one stays in force. A hub holding no roster does
                    not start on a named file it cannot accept. A draft
                    (roster.draft.json beside the file: edits not yet
                    signed) is never loaded; the hub warns that it waits.

  --set KEY=VALUE   Any config key, e.g. --set chat.limits.maxMessageChars=2000
                    (repeatable; flags win over PARLEY_* variables and the file);
                    a list as JSON or comma-separated, e.g.
                    --set 'mcp.excludedKinds=["architect"]'
`;

/** `--set key=value` pairs as dotted config keys (validated by the config loader). */
export function parseSets(sets: string[]): Record<string, string> {
  const flags: Record<string, string> = {};
  for (const item of sets) {
    const eq = item.indexOf('=');
    if (eq <= 0) {
      throw new ParleyError('CONFIG_INVALID', `Invalid --set "${item}": write it as KEY=VALUE, e.g. --set chat.enabled=false.`, { field: 'set' });
    }
    flags[item.slice(0, eq).trim()] = item.slice(eq + 1);
  }
  return flags;
}

/** `parley serve`: runs the hub core on the home until a signal stops it. */
export const serve: CommandRun<typeof SERVE_OPTIONS> = { help: HELP, run: serveHub };

async function serveHub({ values }: CommandArgs<typeof SERVE_OPTIONS>): Promise<number> {
  const home = resolveHome(values.home);
  const config = loadConfig({
    home,
    configFile: values.config,
    // A roster path typed on the command line is relative to where it was typed.
    flags: { ...parseSets(values.set ?? []), 'server.host': values.host, 'server.port': values.port, 'trust.rosterPath': values.roster === undefined ? undefined : path.resolve(values.roster) },
    flagNames: { 'server.host': '--host', 'server.port': '--port', 'trust.rosterPath': '--roster' },
  });
  const logger = createStderrLogger();
  const hub = await openHub({ home, config, logger });
  let server;
  try {
    server = await startHttpServer({ hub, host: config.server.host, port: config.server.port, logger, admin: createAdminCredential(home) });
  } catch (error) {
    await hub.close();
    throw error;
  }
  // Beside the port, a socket in the home for `parley mcp` on this machine (none: it uses REST).
  let localSocket: LocalSocket | undefined;
  try {
    localSocket = await startLocalSocket({ hub, home, url: server.url, logger });
  } catch (error) {
    logger.warn('no local socket; local clients use REST', { error });
  }
  hub.describe({ url: server.url });
  let coordinator: Coordinator | undefined;
  if (config.coordinator.enabled) {
    try {
      coordinator = await Coordinator.start({ hubAccess: new InProcessHubAccess(hub, server.url), config: config.coordinator, logger });
    } catch (error) {
      const serverClosed = server.close();
      const socketClosed = localSocket?.close();
      await hub.close();
      await Promise.all([serverClosed, socketClosed]);
      throw error;
    }
  }
  // Listening for the stop signal before saying "running": whoever reads that line may send it at once.
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
    // The terminal closed: a clean stop too (the coordinator's adapters are killed, the store closed).
    process.once('SIGHUP', () => resolve());
  });
  if (!config.webui.password) {
    process.stderr.write('WARNING: no web UI password is set (PARLEY_WEBUI_PASSWORD or webui.password): set one before using the web page.\n');
  }
  const roster = hub.roster();
  const draft = pendingDraftNoticeOf(roster.file, roster.current);
  if (draft) process.stderr.write(`WARNING: ${draft}\n`);
  process.stdout.write(
    [
      `Parley hub running (pid ${process.pid}).`,
      `  API:    ${server.url}/api/v1   (health: ${server.url}/healthz)`,
      `  MCP:    ${server.url}/mcp   (stdio: parley mcp --as HANDLE)`,
      `  web:    ${server.url}/   (${!webPageBuilt() ? 'not built: run "npm run build"' : config.webui.password ? 'sign in with the hub password' : 'set a password to sign in'})`,
      `  data:   ${hub.storeFile}`,
      ...(coordinator ? [`  coordinator: @${config.coordinator.handle} answers for ${Object.keys(config.coordinator.agents).map((h) => `@${h}`).join(', ') || 'no one yet (coordinator.agents is empty)'}; notices in #${config.coordinator.channel}`] : []),
      `  stop:   Ctrl-C, or "parley stop" from another terminal`,
      '',
    ].join('\n'),
  );
  await stopped;
  // The coordinator's runs are killed and reported while the hub still takes their notices.
  await coordinator?.stop();
  // Stop taking connections; the hub then finishes what is in flight and ends
  // waits and streams, which lets the remaining connections close.
  const serverClosed = server.close();
  const socketClosed = localSocket?.close();
  await hub.close();
  await Promise.all([serverClosed, socketClosed]);
  process.stdout.write('Parley hub stopped; the store is closed cleanly.\n');
  return 0;
}
