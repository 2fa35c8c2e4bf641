import fs from 'node:fs';
import { ParleyError, isParleyError } from '../errors/parley-error.js';
import type { Roster, RosterMember } from '../schema/roster.js';
import { makeHomePrivate } from '../home/private-home.js';
import { ensureKeyFile, hubKeyPathOf } from '../trust/key-files.js';
import { formatPublicKey, rawPublicKeyOf } from '../trust/node-id.js';
import { writeRosterFile } from '../trust/roster-file.js';
import { parseRoster, signRoster } from '../trust/roster.js';
import type { CommandArgs, CommandRun } from './command.js';
import type { ROSTER_INIT_OPTIONS } from './command-options.js';
import { noExtra, nowStamp, placeOf, rosterHelp, say } from './roster-args.js';
import { push } from './roster-place.js';

/**
 * `parley roster init`: version 1 of this home's roster, the hub key as its
 * admin and the running hub's participants with the access they have now,
 * signed by the hub key, written to the roster file and handed to the hub.
 */
export const rosterInit: CommandRun<typeof ROSTER_INIT_OPTIONS> = { help: rosterHelp('init'), run: makeRoster };

async function makeRoster({ values, positionals }: CommandArgs<typeof ROSTER_INIT_OPTIONS>): Promise<number> {
  noExtra(positionals, 0, 'parley roster init --org ID');
  if (values.org === undefined) throw new ParleyError('INVALID_INPUT', 'Give the organisation id: parley roster init --org ID (letters, digits, "_", ".", ":" or "-").', { field: '--org' });
  const place = placeOf(values);
  if (place.hasFile()) {
    throw new ParleyError('CONFLICT', `A roster already exists at ${place.file}; change it with "parley roster add|remove|set-role", or give another --roster FILE.`, { field: 'roster' });
  }
  if (fs.existsSync(place.draftFile)) {
    throw new ParleyError('CONFLICT', `A roster draft is pending at ${place.draftFile}; sign it with "parley roster sign" or drop it with "parley roster discard" first.`, { field: 'roster' });
  }
  const hub = await place.hub();
  if (hub?.roster) {
    throw new ParleyError('CONFLICT', `The running hub already has roster ${hub.roster.org_id} v${hub.roster.version}; edit it with "parley roster add|remove|set-role" instead.`, { field: 'roster' });
  }
  makeHomePrivate(place.home);
  const hubKey = ensureKeyFile(hubKeyPathOf(place.home)).privateKey;
  const hubPubkey = formatPublicKey(rawPublicKeyOf(hubKey));
  const members: RosterMember[] = [{ pubkey: hubPubkey, role: 'admin', kind: 'hub' }];
  for (const p of hub?.participants ?? []) {
    if (p.access !== null && p.pubkey !== hubPubkey) members.push({ pubkey: p.pubkey, role: p.access });
  }
  let draft: Roster;
  try {
    draft = parseRoster({ org_id: values.org, version: 1, timestamp: nowStamp(), members, signatures: [] });
  } catch (error) {
    if (isParleyError(error) && error.field === 'org_id') throw new ParleyError('INVALID_INPUT', error.message.replace('roster field org_id', '--org'), { field: '--org' });
    throw error;
  }
  const roster = signRoster(draft, hubKey);
  writeRosterFile(place.file, roster);
  const pushed = await push(place, roster);
  say(values, { file: place.file, roster, pushed: pushed ?? null }, [
    `made roster ${roster.org_id} v1 at ${place.file}, signed by this hub's key`,
    `  members: ${roster.members.length} (this hub as admin${hub ? `, and the hub's ${roster.members.length - 1} participants with their access now` : ''})`,
    `  ${pushed ? pushed.message : 'no hub runs on this home: "parley serve" loads it'}`,
  ].join('\n'));
  return pushed?.accepted === false ? 1 : 0;
}
