import { resolveHome } from '../config/home.js';
import { liveHub } from '../client/live-hub.js';
import { ParleyError } from '../errors/parley-error.js';
import type { CommandArgs, CommandRun } from './command.js';
import type { PEER_SELF_OPTIONS } from './command-options.js';
import { askPeerSelf } from './running-hub.js';
import { terminalJson, terminalText } from './terminal-text.js';

const HELP = `Usage: parley peer self [--home DIR] [--json]

This hub as other hubs know it: its key and id (from the hub key in the home),
its name (peers.name, else the host name), the addresses it listens on for
peers (none unless "parley serve --peer-port PORT" or peers.listen), and the
participants it hosts with their keys. Asks the hub running on the home.

--json prints it as one JSON object: the file "parley roster add --from FILE"
takes on another hub.
`;

export const peerSelf: CommandRun<typeof PEER_SELF_OPTIONS> = { help: HELP, run: showPeerSelf };

async function showPeerSelf({ values }: CommandArgs<typeof PEER_SELF_OPTIONS>): Promise<number> {
  const home = resolveHome(values.home);
  const holder = liveHub(home);
  if (!holder) throw new ParleyError('HUB_CLOSED', `No hub is running on home ${home}; start one with "parley serve" (add --peer-port PORT to listen for peers).`);
  const answer = await askPeerSelf(holder, home);
  if (!answer.ok) throw new ParleyError('HUB_CLOSED', `The hub (pid ${holder.pid}) on home ${home} did not answer: ${answer.reason}.`);
  const { self } = answer;
  if (values.json) {
    process.stdout.write(`${terminalJson(self)}\n`);
    return 0;
  }
  const lines = [
    `Hub ${terminalText(self.name, 'one line')} (${self.id})`,
    `  key:    ${self.key}`,
    ...(self.addrs.length === 0 ? ['  addrs:  none (not listening for peers: parley serve --peer-port PORT)'] : self.addrs.map((addr, i) => `  ${i === 0 ? 'addrs: ' : '       '} ${terminalText(addr, 'one line')}`)),
    `  hosts:  ${self.participants.length === 0 ? 'no participants yet' : self.participants.map((p) => `@${terminalText(p.handle, 'one line')} (${p.kind})`).join(', ')}`,
    '',
  ];
  process.stdout.write(lines.join('\n'));
  return 0;
}
