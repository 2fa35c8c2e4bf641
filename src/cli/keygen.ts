import { resolveHome } from '../config/home.js';
import { makeHomePrivate } from '../home/private-home.js';
import { ensureKeyFile, hubKeyPathOf } from '../trust/key-files.js';
import { formatPublicKey, hubIdOf, rawPublicKeyOf } from '../trust/node-id.js';
import type { CommandArgs, CommandRun } from './command.js';
import type { KEYGEN_OPTIONS } from './command-options.js';

const KEYGEN_HELP = `Usage: parley keygen [--home DIR] [--json]

Makes this home's hub key (keys/hub.key, readable by its owner only) if it has
none yet, and prints its public key and id. Running it again prints the same
key: a key is never replaced. The hub makes the key itself on first start, so
this is only needed to learn the key before then (to put it in a roster).
Participants' keys are made when they join ("parley whoami --key" shows one).
`;

export const keygen: CommandRun<typeof KEYGEN_OPTIONS> = { help: KEYGEN_HELP, run: makeHubKey };

async function makeHubKey({ values }: CommandArgs<typeof KEYGEN_OPTIONS>): Promise<number> {
  const home = resolveHome(values.home);
  makeHomePrivate(home);
  const file = hubKeyPathOf(home);
  const { privateKey, created } = ensureKeyFile(file);
  const raw = rawPublicKeyOf(privateKey);
  const key = { id: hubIdOf(raw), pubkey: formatPublicKey(raw), file, created };
  if (values.json) process.stdout.write(`${JSON.stringify(key)}\n`);
  else process.stdout.write(`${created ? 'made' : 'kept'} the hub key of ${home}\n  pubkey  ${key.pubkey}\n  id      ${key.id}\n  file    ${file} (0600)\n`);
  return 0;
}
