import { HubAdmin } from '../client/hub-admin.js';
import { provenHubUrl } from '../client/hub-address.js';
import { liveHub } from '../client/live-hub.js';
import { resolveHome } from '../config/home.js';
import { ParleyError } from '../errors/parley-error.js';
import { addToPeerBook, peerBookFileOf, readPeerBook, removeFromPeerBook } from '../home/peer-book.js';
import type { PeerLinkInfo } from '../schema/peer-link.js';
import { hubIdOf, parsePublicKey } from '../trust/node-id.js';
import type { CommandArgs, CommandRun } from './command.js';
import type { PEER_OPTIONS } from './command-options.js';
import { terminalJson, terminalText } from './terminal-text.js';
import { dropCounts, gapsText } from './peer-drops.js';

/**
 * `parley peer add|list|remove`: the hubs this home links to. With a hub
 * running on the home, it is asked (it keeps the peer and dials it at once);
 * with none, the home's peers.json is edited and the hub dials them when it
 * starts.
 */

const ADD_HELP = `Usage: parley peer add MULTIADDR [--home DIR] [--json]

Keeps another hub in this home and dials it: now if a hub runs on the home,
else when "parley serve" starts, and again after every restart, with a
back-off while it is away. MULTIADDR is one of the addresses "parley peer
self" prints on that hub: /ip4/HOST/tcp/PORT/p2p/PEER_ID. A link is made only
with a hub the roster in force lists ("parley roster add --from FILE").
`;

const LIST_HELP = `Usage: parley peer list [--home DIR] [--json]

The hubs this one links to or knows of: key, id, name, addresses, the link's
state (connected, connecting, refused, offline) and why, when it was last
heard from, events queued for it, and drops by reason. With no hub running,
the peers kept in the home, all offline.
`;

const REMOVE_HELP = `Usage: parley peer remove KEY|MULTIADDR [--home DIR] [--json]

Forgets a kept hub, by its key (ed25519:…, every address of it) or by one
address, and closes its links. A hub of the roster may still link to this one
when it dials it.
`;

export const peerAdd: CommandRun<typeof PEER_OPTIONS> = { help: ADD_HELP, run: add };
export const peerList: CommandRun<typeof PEER_OPTIONS> = { help: LIST_HELP, run: list };
export const peerRemove: CommandRun<typeof PEER_OPTIONS> = { help: REMOVE_HELP, run: remove };

async function add({ values, positionals }: CommandArgs<typeof PEER_OPTIONS>): Promise<number> {
  const addr = onePositional(positionals, 'addr', 'parley peer add MULTIADDR');
  const home = resolveHome(values.home);
  const admin = await runningHub(home);
  if (admin) {
    const { peer, added } = await admin.addPeer(addr);
    if (values.json) return print({ peer, added, dialled: true });
    process.stdout.write(`${added ? 'Added' : 'Already kept:'} ${describe(peer)}; the hub dials it now ("parley peer list" shows the link).\n`);
    return 0;
  }
  const { entry, added } = addToPeerBook(home, addr);
  if (values.json) return print({ peer: { key: entry.key, id: hubIdOf(parsePublicKey(entry.key)), addrs: [entry.addr] }, added, dialled: false });
  process.stdout.write(`${added ? 'Added' : 'Already kept:'} ${entry.key} at ${terminalText(entry.addr, 'one line')} in ${peerBookFileOf(home)}; no hub runs on this home: "parley serve" dials it.\n`);
  return 0;
}

async function list({ values }: CommandArgs<typeof PEER_OPTIONS>): Promise<number> {
  const home = resolveHome(values.home);
  const admin = await runningHub(home);
  const peers: PeerLinkInfo[] = admin
    ? (await admin.peers()).peers
    : readPeerBook(home).map((entry) => ({
        key: entry.key,
        id: hubIdOf(parsePublicKey(entry.key)),
        name: '',
        addrs: [entry.addr],
        state: 'offline',
        reason: 'no hub runs on this home',
        lastSeen: null,
        queued: 0,
        lagSeconds: 0,
        drops: {},
        configured: true,
        participants: [],
        gaps: [],
        archive: false,
      }));
  if (values.json) return print(peers);
  if (peers.length === 0) {
    process.stdout.write(`No peers${admin ? '' : ' kept (no hub runs on this home)'}: add one with "parley peer add MULTIADDR" (its "parley peer self" prints it).\n`);
    return 0;
  }
  const lines = peers.flatMap((peer) => [
    `${peer.state.padEnd(10)} ${describe(peer)}${peer.reason && peer.state !== 'connected' ? `: ${terminalText(peer.reason, 'one line')}` : ''}`,
    `           last seen ${peer.lastSeen ?? 'never'}, ${peer.queued} queued${lagText(peer)}${dropsText(peer.drops)}${peer.participants.length > 0 ? `; hosts ${peer.participants.map((p) => `@${terminalText(p.handle, 'one line')}`).join(', ')}` : ''}`,
    ...((peer.gaps ?? []).length > 0 ? [`           history incomplete: ${terminalText(gapsText(peer.gaps), 'one line')}`] : []),
  ]);
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

async function remove({ values, positionals }: CommandArgs<typeof PEER_OPTIONS>): Promise<number> {
  const peer = onePositional(positionals, 'peer', 'parley peer remove KEY|MULTIADDR');
  const home = resolveHome(values.home);
  const admin = await runningHub(home);
  const removed = admin ? (await admin.removePeer(peer)).removed : removeFromPeerBook(home, peer).map((entry) => entry.addr);
  if (removed.length === 0) throw new ParleyError('NOT_FOUND', `No peer ${peer} is kept on this home: "parley peer list" shows the ones that are.`, { field: 'peer' });
  if (values.json) return print({ removed });
  process.stdout.write(`Removed ${removed.map((addr) => terminalText(addr, 'one line')).join(', ')}.\n`);
  return 0;
}

/** The home's running hub, asked with its admin token once it proved itself; undefined when none runs. */
async function runningHub(home: string): Promise<HubAdmin | undefined> {
  const holder = liveHub(home);
  if (!holder?.url) return undefined;
  return HubAdmin.ofHome(await provenHubUrl(home, holder), home);
}

function onePositional(positionals: string[], field: string, usage: string): string {
  const [value, ...extra] = positionals;
  if (value === undefined) throw new ParleyError('INVALID_INPUT', `Name the ${field === 'addr' ? 'hub\'s address' : 'peer'}: ${usage}.`, { field });
  if (extra.length > 0) throw new ParleyError('INVALID_INPUT', `One ${field === 'addr' ? 'address' : 'peer'} at a time: ${usage} (got ${positionals.length}).`, { field });
  return value;
}

function describe(peer: Pick<PeerLinkInfo, 'key' | 'name' | 'addrs'> & { archive?: boolean }): string {
  const name = peer.name ? `${terminalText(peer.name, 'one line')} ` : '';
  return `${name}${peer.archive ? '(archive) ' : ''}${peer.key}${peer.addrs[0] ? ` at ${terminalText(peer.addrs[0], 'one line')}` : ''}`;
}

/** " (behind 42 s)": how long the oldest event waiting for it has waited. */
function lagText(peer: Pick<PeerLinkInfo, 'lagSeconds'>): string {
  return peer.lagSeconds > 0 ? ` (behind ${peer.lagSeconds} s)` : '';
}

function dropsText(drops: PeerLinkInfo['drops']): string {
  const counted = dropCounts(drops);
  return counted === '' ? '' : `, dropped ${counted}`;
}

function print(value: unknown): number {
  process.stdout.write(`${terminalJson(value)}\n`);
  return 0;
}
