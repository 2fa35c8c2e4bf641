import { resolveHome } from '../config/home.js';
import { liveHub } from '../client/live-hub.js';
import { trustSummary } from '../format/trust-summary.js';
import { askHub, formatUptime, type HubStatus } from './running-hub.js';
import { dropCounts, gapsText } from './peer-drops.js';
import { terminalJson, terminalText } from './terminal-text.js';
import type { CommandArgs, CommandRun } from './command.js';
import type { STATUS_OPTIONS } from './command-options.js';

/**
 * `parley status`: whether a hub runs on this home, where it serves, its
 * pid, how long it has run and who is connected. Exits 1 when none runs, so
 * scripts can test for it.
 */
export const STATUS_HELP = `Usage: parley status [--home DIR] [--json]

Says whether a hub is running on the home (default $PARLEY_HOME or ~/.parley):
its URL, pid, uptime and the participants connected now. Exits 0 when one
runs, 1 when none does.
`;

/** "3 taken in; dropped: 1 expired, 2 duplicate" (only the reasons that happened). */
function envelopeSummary(envelopes: NonNullable<HubStatus['envelopes']>): string {
  const drops = Object.entries(envelopes.dropped).filter(([, n]) => n > 0);
  return `${envelopes.accepted} signed elsewhere taken in; ${drops.length === 0 ? 'none dropped' : `dropped: ${drops.map(([reason, n]) => `${n} ${reason}`).join(', ')}`}`;
}

/** "2 linked: laptop, build-box (40 queued, behind 3 s, dropped 1 bad-signature)" — names, or ids while a peer's hello is unread. */
export function peerSummary(peers: NonNullable<HubStatus['peers']>): string {
  const name = (peer: (typeof peers)[number]) => peer.name || peer.id;
  const states = ['connected', 'connecting', 'refused', 'offline'] as const;
  return states
    .map((state) => [state, peers.filter((peer) => peer.state === state)] as const)
    .filter(([, inState]) => inState.length > 0)
    .map(([state, inState]) => `${inState.length} ${state === 'connected' ? 'linked' : state}: ${inState.map((peer) => `${name(peer)}${peerBacklog(peer)}`).join(', ')}`)
    .join('; ');
}

/** " (40 queued, behind 3 s, dropped 1 bad-signature)": only what is not zero. */
function peerBacklog(peer: NonNullable<HubStatus['peers']>[number]): string {
  const drops = dropCounts(peer.drops);
  const parts = [
    ...(peer.queued > 0 ? [`${peer.queued} queued`] : []),
    // Absent from hubs before lag was reported.
    ...((peer.lagSeconds ?? 0) > 0 ? [`behind ${peer.lagSeconds} s`] : []),
    ...(drops === '' ? [] : [`dropped ${drops}`]),
    // Absent from hubs before history sync.
    ...((peer.gaps?.length ?? 0) > 0 ? [`history incomplete: ${gapsText(peer.gaps ?? [])}`] : []),
  ];
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

export const status: CommandRun<typeof STATUS_OPTIONS> = { help: STATUS_HELP, run: hubStatus };

async function hubStatus({ values }: CommandArgs<typeof STATUS_OPTIONS>): Promise<number> {
  const home = resolveHome(values.home);
  const holder = liveHub(home);
  if (!holder) {
    if (values.json) process.stdout.write(`${JSON.stringify({ running: false, home })}\n`);
    else process.stdout.write(`No hub is running on home ${home}; start one with "parley serve".\n`);
    return 1;
  }
  const answer = await askHub(holder, home);
  if (!answer.ok) {
    // The lock says a process holds the home, but it does not answer as a hub: say what is known.
    if (values.json) process.stdout.write(`${terminalJson({ running: true, answering: false, home, pid: holder.pid, url: holder.url ?? null, reason: answer.reason })}\n`);
    else process.stdout.write(`A hub (pid ${holder.pid}) holds home ${home}, but ${terminalText(answer.reason, 'one line')}.\n`);
    return 1;
  }
  const { status: hub } = answer;
  if (values.json) {
    process.stdout.write(`${terminalJson({ running: true, answering: true, url: holder.url, ...hub, home })}\n`);
    return 0;
  }
  const who = hub.connected.map((c) => `@${c.handle} (${c.session}, ${c.connection}${c.state === 'listening' ? '' : ` · ${c.state}`})`).join(', ');
  const text = [
    `Parley hub running on home ${home}`,
    `  URL:        ${holder.url}`,
    `  pid:        ${hub.pid}`,
    `  version:    ${hub.version}`,
    `  uptime:     ${formatUptime(hub.uptimeSeconds)} (since ${hub.startedAt})`,
    `  connected:  ${hub.connected.length}${who ? `: ${who}` : ''}`,
    ...(hub.trust ? [`  trust:      ${trustSummary(hub.trust)}`] : []),
    ...(hub.envelopes ? [`  envelopes:  ${envelopeSummary(hub.envelopes)}`] : []),
    ...(hub.peers && hub.peers.length > 0 ? [`  peers:      ${peerSummary(hub.peers)}`] : []),
    '',
  ].join('\n');
  // Printed safe for a terminal: it holds what the hub answered (who is connected, and as what).
  process.stdout.write(terminalText(text, 'lines'));
  return 0;
}
