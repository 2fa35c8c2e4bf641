import fs from 'node:fs';
import type { KeyObject } from 'node:crypto';
import { ParleyError } from '../errors/parley-error.js';
import type { Roster } from '../schema/roster.js';
import { hubKeyPathOf, participantKeyPathOf, readKeyFile } from '../trust/key-files.js';
import { formatPublicKey, parsePublicKey, participantIdOf, rawPublicKeyOf } from '../trust/node-id.js';
import { removeDraftFile, writeDraftFile } from '../trust/roster-draft.js';
import { writeRosterFile } from '../trust/roster-file.js';
import { rosterSigningBytes, signRoster } from '../trust/roster.js';
import type { CommandArgs, CommandRun } from './command.js';
import type { ROSTER_OPTIONS, ROSTER_SIGN_OPTIONS } from './command-options.js';
import { assertAcceptable, noExtra, placeOf, rosterHelp, say } from './roster-args.js';
import { push, type RosterPlace } from './roster-place.js';

/**
 * `parley roster sign` and `parley roster discard`: the draft put in force,
 * or dropped. Signing needs no hub: a participant's key is found through the
 * home's store (handle → public key) and its key file; a draft an admin of
 * the version in force signed becomes the roster file, which the next
 * `parley serve` loads. With a hub running, the hub decides, as before.
 */

/** The private key to sign with: this home's hub key, or the key this home keeps for participant `as`. */
async function signingKey(place: RosterPlace, as: string | undefined): Promise<{ key: KeyObject; signer: string }> {
  if (as === undefined) {
    const file = hubKeyPathOf(place.home);
    if (!fs.existsSync(file)) throw new ParleyError('NOT_FOUND', `This home has no hub key (${file}); make it with "parley keygen", or sign --as HANDLE.`, { field: '--as' });
    return { key: readKeyFile(file), signer: "this hub's key" };
  }
  const { pubkey, handle } = await place.keyOf(`@${as.replace(/^@/, '')}`, 'parley roster sign --as HANDLE');
  const file = participantKeyPathOf(place.home, participantIdOf(parsePublicKey(pubkey)));
  if (!fs.existsSync(file)) throw new ParleyError('NOT_FOUND', `This home holds no key for @${handle} (${file}); sign where that participant registered.`, { field: '--as' });
  return { key: readKeyFile(file), signer: `@${handle}'s key` };
}

const sameVersion = (a: Roster, b: Roster): boolean => a.org_id === b.org_id && Buffer.compare(rosterSigningBytes(a), rosterSigningBytes(b)) === 0;

export const rosterSign: CommandRun<typeof ROSTER_SIGN_OPTIONS> = { help: rosterHelp('sign'), run: signDraft };

export const rosterDiscard: CommandRun<typeof ROSTER_OPTIONS> = { help: rosterHelp('discard'), run: discardDraft };

async function signDraft({ values, positionals }: CommandArgs<typeof ROSTER_SIGN_OPTIONS>): Promise<number> {
  noExtra(positionals, 0, 'parley roster sign [--as HANDLE] [--confirm]');
  const place = placeOf(values);
  const draft = await place.draftToChange();
  if (!draft && !place.hasFile()) {
    throw new ParleyError(
      'NOT_FOUND',
      `No roster file at ${place.file} to sign, and no draft at ${place.draftFile}; make one with "parley roster init --org ID" or "parley roster add|remove|set-role", or give --roster FILE.`,
      { field: 'roster' },
    );
  }
  const target = draft ?? place.read();
  const inForce = await place.inForce();
  const { key, signer } = await signingKey(place, values.as);
  // Only admins of the version in force (of the draft itself for a first roster) may sign: a signature by
  // anyone else would make the hub refuse the roster until it is edited again, so none is added.
  const authority = inForce ?? target;
  const signerKey = formatPublicKey(rawPublicKeyOf(key));
  const role = authority.members.find((m) => m.pubkey === signerKey)?.role;
  if (role !== 'admin') {
    throw new ParleyError(
      'ROSTER_INVALID',
      `Not signed: ${signer} (${signerKey}) is ${role === undefined ? 'not a member' : role} in roster ${authority.org_id} v${authority.version}; only its admins may sign a new version. Sign with an admin's key (--as HANDLE, or the hub key).`,
      { field: '--as' },
    );
  }
  if (!draft && inForce && sameVersion(target, inForce)) {
    throw new ParleyError('CONFLICT', `Nothing to sign: roster ${target.org_id} v${target.version} at ${place.file} is the version in force, and no draft is pending; change it first with "parley roster add|remove|set-role".`, {
      field: 'roster',
    });
  }
  const roster = signRoster(target, key);
  const count = `${roster.signatures.length} signature${roster.signatures.length === 1 ? '' : 's'}`;
  const first = `signed roster ${roster.org_id} v${roster.version} with ${signer} (${count})`;
  if (await place.hub()) {
    // The hub decides; the draft keeps the signature until it has put the version in force.
    if (draft) writeDraftFile(place.draftFile, roster);
    else writeRosterFile(place.file, roster);
    const pushed = (await push(place, roster, values.confirm === true))!;
    if (pushed.accepted && draft) {
      writeRosterFile(place.file, roster);
      removeDraftFile(place.draftFile);
    }
    const after = !draft ? '' : pushed.accepted ? `\n  ${place.file} holds it now; the draft is gone` : `\n  the draft stays at ${place.draftFile}, signed: sign it again, change it, or drop it with "parley roster discard"`;
    say(values, { file: place.file, draft: draft ? place.draftFile : null, roster, pushed }, `${first}\n  ${pushed.message}${after}`);
    return pushed.accepted ? 0 : 1;
  }
  // No hub: the roster file gets it only if a hub starting now would put it in force.
  assertAcceptable(inForce, roster, 'Not signed', draft ? `the draft at ${place.draftFile}` : place.file);
  writeRosterFile(place.file, roster);
  if (draft) removeDraftFile(place.draftFile);
  say(
    values,
    { file: place.file, draft: null, roster, pushed: null },
    `${first}\n  no hub runs on this home: ${place.file} holds it now${draft ? ' (the draft is gone)' : ''}; "parley serve" puts it in force`,
  );
  return 0;
}

async function discardDraft({ values, positionals }: CommandArgs<typeof ROSTER_OPTIONS>): Promise<number> {
  noExtra(positionals, 0, 'parley roster discard');
  const place = placeOf(values);
  const draft = await place.draftToChange();
  const inForce = await place.inForce();
  const held = inForce ? `roster ${inForce.org_id} v${inForce.version} stays in force` : 'no roster is in force (local mode)';
  const json = { file: place.draftFile, inForce: inForce ? { org_id: inForce.org_id, version: inForce.version } : null };
  if (!draft) {
    say(values, { ...json, discarded: null }, `no roster draft at ${place.draftFile}: nothing to discard (${held})`);
    return 0;
  }
  removeDraftFile(place.draftFile);
  say(values, { ...json, discarded: { org_id: draft.org_id, version: draft.version } }, `dropped roster draft ${draft.org_id} v${draft.version} (${place.draftFile}); ${held}`);
  return 0;
}
