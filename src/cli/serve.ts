import path from 'node:path';
import { DEFAULT_PEER_HOST } from '../config/defaults.js';
import { loadConfig, resolveHome } from '../config/load.js';
import { ParleyError } from '../errors/parley-error.js';
import { Coordinator } from '../coordinator/coordinator.js';
import { InProcessHubAccess } from '../coordinator/in-process-hub-access.js';
import { openHub } from '../hub/index.js';
import { createAdminCredential } from '../home/admin-token.js';
import { webPageBuilt } from '../http/web.js';
import { startHttpServer } from '../http/server.js';
import { startLocalSocket, type LocalSocket } from '../local-socket/local-socket-server.js';
import { LinksOnDemand } from '../peer/links-on-demand.js';
import { pendingDraftNoticeOf } from '../trust/roster-draft.js';
import { createStderrLogger } from '../util/logger.js';
import type { CommandArgs, CommandRun } from './command.js';
import type { SERVE_OPTIONS } from './command-options.js';

const HELP = `Usage: parley serve [--home DIR] [--config FILE] [--host HOST] [--port PORT] [--roster FILE]
                    [--peer-port PORT [--peer-host HOST]] [--set KEY=VALUE ...]

Runs the hub: takes the home's single-writer lock, opens the store and keeps it
until SIGINT or SIGTERM, then commits what is pending and closes cleanly.

  --peer-port PORT  Also listen for hubs on other machines (peer links over
                    libp2p: TCP, Noise, yamux), on this port (0: a free one;
                    "parley peer self" says which). None by default
                    (config peers.listen, a list of multiaddrs). Only hubs
                    the roster in force lists are linked; in local mode every
                    peer is refused.
  --peer-host HOST  The interface for --peer-port (default ${DEFAULT_PEER_HOST}: all).

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

/** The entries whose value was given. */
function givenOnly(flags: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(flags).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/**
 * `--peer-port PORT [--peer-host HOST]` as the one listen address of
 * peers.listen (a JSON list, as --set takes lists); undefined without them.
 */
export function peerListenFlag(port: string | undefined, host: string | undefined): string | undefined {
  if (port === undefined) {
    if (host !== undefined) throw new ParleyError('CONFIG_INVALID', 'Invalid --peer-host: it says where --peer-port listens; give --peer-port PORT too.', { field: 'peer-host' });
    return undefined;
  }
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) {
    throw new ParleyError('CONFIG_INVALID', `Invalid --peer-port "${port}": give a port from 0 to 65535 (0 picks a free one).`, { field: 'peer-port' });
  }
  const where = host ?? DEFAULT_PEER_HOST;
  if (where === '' || /[\s/]/.test(where)) {
    throw new ParleyError('CONFIG_INVALID', `Invalid --peer-host "${where}": give an IP address or a host name, e.g. 0.0.0.0 or 192.168.1.20.`, { field: 'peer-host' });
  }
  const protocol = where.includes(':') ? 'ip6' : /^\d{1,3}(\.\d{1,3}){3}$/.test(where) ? 'ip4' : 'dns';
  return JSON.stringify([`/${protocol}/${where}/tcp/${Number(port)}`]);
}

/** `parley serve`: runs the hub core on the home until a signal stops it. */
export const serve: CommandRun<typeof SERVE_OPTIONS> = { help: HELP, run: serveHub };

async function serveHub({ values }: CommandArgs<typeof SERVE_OPTIONS>): Promise<number> {
  const home = resolveHome(values.home);
  // A flag not given leaves the key to --set: an undefined entry after the --set pairs would hide theirs.
  const named = givenOnly({
    'server.host': values.host,
    'server.port': values.port,
    'trust.rosterPath': values.roster === undefined ? undefined : path.resolve(values.roster),
    'peers.listen': peerListenFlag(values['peer-port'], values['peer-host']),
  });
  const flagNames: Record<string, string> = { 'server.host': '--host', 'server.port': '--port', 'trust.rosterPath': '--roster', 'peers.listen': '--peer-port' };
  const config = loadConfig({
    home,
    configFile: values.config,
    // A roster path typed on the command line is relative to where it was typed.
    flags: { ...parseSets(values.set ?? []), ...named },
    // An error names the flag the value came from: --port for --port, "--set server.port" for --set.
    flagNames: Object.fromEntries(Object.keys(named).map((key) => [key, flagNames[key]!])),
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
  // Peer links only when there is something to link: a hub without them never loads libp2p.
  let peerLinks: LinksOnDemand;
  try {
    peerLinks = await LinksOnDemand.start({ hub, home, listen: config.peers.listen, logger });
    hub.attachPeerLinks(peerLinks);
  } catch (error) {
    const serverClosed = server.close();
    const socketClosed = localSocket?.close();
    await hub.close();
    await Promise.all([serverClosed, socketClosed]);
    throw error;
  }
  let coordinator: Coordinator | undefined;
  if (config.coordinator.enabled) {
    try {
      coordinator = await Coordinator.start({ hubAccess: new InProcessHubAccess(hub, server.url), config: config.coordinator, logger });
    } catch (error) {
      await peerLinks.stop();
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
      ...(peerLinks.running ? [`  peers:  ${peerLinks.addrs().join(' ') || 'dialling only'}${config.peers.mdns ? ', and looking on the LAN (mDNS)' : ''}   (parley peer self; ${hub.trust.mode === 'local' ? 'local mode: every peer is refused until a roster is in force' : 'hubs of the roster only'})`] : []),
      ...(coordinator ? [`  coordinator: @${config.coordinator.handle} answers for ${Object.keys(config.coordinator.agents).map((h) => `@${h}`).join(', ') || 'no one yet (coordinator.agents is empty)'}; notices in #${config.coordinator.channel}`] : []),
      `  stop:   Ctrl-C, or "parley stop" from another terminal`,
      '',
    ].join('\n'),
  );
  await stopped;
  // The coordinator's runs are killed and reported while the hub still takes their notices.
  await coordinator?.stop();
  hub.attachPeerLinks(undefined);
  await peerLinks.stop();
  // Stop taking connections; the hub then finishes what is in flight and ends
  // waits and streams, which lets the remaining connections close.
  const serverClosed = server.close();
  const socketClosed = localSocket?.close();
  await hub.close();
  await Promise.all([serverClosed, socketClosed]);
  process.stdout.write('Parley hub stopped; the store is closed cleanly.\n');
  return 0;
}
