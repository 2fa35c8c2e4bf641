import { parseArgs } from 'node:util';
import { resolveHome } from '../config/home.js';
import { makeHomePrivate } from '../home/private-home.js';
import { ensureKeyFile, hubKeyPathOf } from '../trust/key-files.js';
import { formatPublicKey, hubIdOf, rawPublicKeyOf } from '../trust/node-id.js';

const KEYGEN_HELP = `Usage: parley keygen [--home DIR] [--json]

Makes this home's hub key (keys/hub.key, readable by its owner only) if it has
none yet, and prints its public key and id. Running it again prints the same
key: a key is never replaced. The hub makes the key itself on first start, so
this is only needed to learn the key before then (to put it in a roster).
Participants' keys are made when they join ("parley whoami --key" shows one).
`;

export async function keygen(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { home: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    process.stdout.write(KEYGEN_HELP);
    return 0;
  }
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
