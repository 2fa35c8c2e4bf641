import { HubAdmin } from '../client/hub-admin.js';
import { provenHubUrl } from '../client/hub-address.js';
import { liveHub } from '../client/live-hub.js';
import { resolveHome } from '../config/home.js';
import { ParleyError } from '../errors/parley-error.js';
import type { CommandArgs, CommandRun } from './command.js';
import type { PEER_BLOCK_OPTIONS, PEER_OPTIONS } from './command-options.js';
import { terminalJson } from './terminal-text.js';

/**
 * `parley peer block|unblock`: cuts the link to a hub of the roster for a
 * while, on the hub running on this home (a partition made on purpose, to
 * see hubs converge through the others when it heals), and lifts it.
 */

const BLOCK_HELP = `Usage: parley peer block KEY [--for DURATION] [--home DIR] [--json]

Cuts the link to the hub holding KEY (ed25519:…, as "parley peer list" shows
it) for DURATION (30s, 10m, 1h; 10m by default, at most 24h): the running hub
hangs up on it, refuses its connections and does not dial it until the block
runs out or "parley peer unblock KEY" lifts it. A block is held in memory: a
restart lifts it. Meanwhile history sync brings what each side writes through
the hubs both still reach.
`;

const UNBLOCK_HELP = `Usage: parley peer unblock KEY [--home DIR] [--json]

Lifts a block "parley peer block" set: the running hub dials the hub again.
`;

export const peerBlock: CommandRun<typeof PEER_BLOCK_OPTIONS> = { help: BLOCK_HELP, run: block };
export const peerUnblock: CommandRun<typeof PEER_OPTIONS> = { help: UNBLOCK_HELP, run: unblock };

/** The longest block, in seconds (a day). */
const MAX_BLOCK_SECONDS = 86_400;
const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600 };

async function block({ values, positionals }: CommandArgs<typeof PEER_BLOCK_OPTIONS>): Promise<number> {
  const key = oneKey(positionals, 'parley peer block KEY [--for DURATION]');
  const seconds = values.for === undefined ? 600 : durationSeconds(values.for);
  const { peer, until } = await (await runningHub(values.home)).blockPeer(key, seconds);
  if (values.json) return print({ peer, until });
  process.stdout.write(`Blocked ${peer.name ? `${peer.name} ` : ''}${peer.key} until ${until} ("parley peer unblock ${peer.key}" lifts it).\n`);
  return 0;
}

async function unblock({ values, positionals }: CommandArgs<typeof PEER_OPTIONS>): Promise<number> {
  const key = oneKey(positionals, 'parley peer unblock KEY');
  const { unblocked } = await (await runningHub(values.home)).unblockPeer(key);
  if (values.json) return print({ unblocked });
  process.stdout.write(unblocked ? `Unblocked ${key}: the hub dials it again.\n` : `${key} was not blocked.\n`);
  return 0;
}

/** "30s", "10m", "1h" (a bare number is seconds), as whole seconds from 1 to a day. */
export function durationSeconds(text: string): number {
  const match = /^(\d{1,6})([smh]?)$/.exec(text.trim());
  const seconds = match ? Number(match[1]) * UNIT_SECONDS[match[2] || 's']! : NaN;
  if (!(seconds >= 1 && seconds <= MAX_BLOCK_SECONDS)) {
    throw new ParleyError('INVALID_INPUT', `Invalid --for "${text}": give a duration such as 30s, 10m or 1h, from 1s to 24h.`, { field: 'for' });
  }
  return seconds;
}

function oneKey(positionals: string[], usage: string): string {
  const [key, ...extra] = positionals;
  if (key === undefined) throw new ParleyError('INVALID_INPUT', `Name the hub by its key: ${usage} ("parley peer list" shows each key).`, { field: 'peer' });
  if (extra.length > 0) throw new ParleyError('INVALID_INPUT', `One hub at a time: ${usage} (got ${positionals.length}).`, { field: 'peer' });
  return key;
}

/** The home's running hub, asked with its admin token; a block is held by a running hub only. */
async function runningHub(homeOption: string | undefined): Promise<HubAdmin> {
  const home = resolveHome(homeOption);
  const holder = liveHub(home);
  if (!holder?.url) throw new ParleyError('CONFLICT', `No hub runs on ${home}: a block is held by a running hub ("parley serve" first).`, { field: 'home' });
  return HubAdmin.ofHome(await provenHubUrl(home, holder), home);
}

function print(value: unknown): number {
  process.stdout.write(`${terminalJson(value)}\n`);
  return 0;
}
