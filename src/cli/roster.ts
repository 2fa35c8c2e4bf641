import fs from 'node:fs';
import path from 'node:path';
import { ParleyError, isParleyError } from '../errors/parley-error.js';
import type { Access } from '../schema/access.js';
import type { Roster, RosterMember } from '../schema/roster.js';
import { makeHomePrivate } from '../home/private-home.js';
import { ensureKeyFile, hubKeyPathOf } from '../trust/key-files.js';
import { formatPublicKey, rawPublicKeyOf } from '../trust/node-id.js';
import { writeDraftFile } from '../trust/roster-draft.js';
import { readRosterFile, writeRosterFile } from '../trust/roster-file.js';
import { acceptRoster, parseRoster, rosterSigningBytes, signRoster } from '../trust/roster.js';
import { HELPS, helped, noExtra, nowStamp, parse, placeOf, roleOf, say } from './roster-args.js';
import type { HubRoster } from '../client/hub-admin.js';
import { push, type RosterPlace } from './roster-place.js';

/**
 * `parley roster init|add|remove|set-role|verify`: the signed roster file of
 * this home and its draft. Editing (add, remove, set-role) changes the draft,
 * a file of its own beside the roster file, one version above the roster in
 * force and unsigned; `sign` and `discard` (roster-sign.ts) put it in force or
 * drop it, and `show` (roster-show.ts) prints both. In local mode (no roster
 * file, none in force) `set-role` sets the hub's local access instead.
 */

export async function rosterInit(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { org: { type: 'string' } });
  if (helped('init', values.help)) return 0;
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
  const members: RosterMember[] = [{ pubkey: hubPubkey, role: 'admin' }];
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

/**
 * add, remove and set-role: one edit of the member list, saved in the draft.
 * A draft keeps its version; a new one is one above the roster it starts
 * from. A fresh timestamp, and no signatures: they would not cover the change.
 */
async function edit(verb: 'add' | 'remove' | 'set-role', argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, verb === 'add' ? { role: { type: 'string' }, archive: { type: 'boolean' } } : {});
  if (helped(verb, values.help)) return 0;
  const usage = HELPS[verb].split('\n')[0]!.replace('Usage: ', '');
  const place = placeOf(values);
  const who = await place.keyOf(positionals[0], usage);
  const role = verb === 'add' ? roleOf(values.role, '--role') : verb === 'set-role' ? roleOf(positionals[1], 'ROLE') : undefined;
  noExtra(positionals, verb === 'set-role' ? 2 : 1, usage);
  const name = who.handle ? `@${who.handle}` : who.pubkey;
  if (verb === 'set-role' && !place.hasFile() && !(await place.draft())) {
    const hub = await place.hub();
    if (hub?.trust.mode === 'local') return setLocalAccess(place, values, hub, who.pubkey, role!);
  }
  const { roster: base, draft: fromDraft } = await place.base();
  const index = base.members.findIndex((m) => m.pubkey === who.pubkey);
  const members = base.members.map((m) => ({ ...m }));
  if (verb === 'add') {
    if (index >= 0) throw new ParleyError('CONFLICT', `${name} is already a member (${base.members[index]!.role}); use "parley roster set-role" to change its role.`, { field: 'member' });
    members.push({ pubkey: who.pubkey, role: role!, ...(values.archive ? { archive: true } : {}) });
  } else if (index < 0) {
    throw new ParleyError('NOT_FOUND', `${name} is not a member of roster ${base.org_id} v${base.version}; "parley roster show" lists them.`, { field: 'member' });
  } else if (verb === 'remove') {
    members.splice(index, 1);
  } else {
    members[index]!.role = role!;
  }
  const version = fromDraft ? base.version : base.version + 1;
  const draft = parseRoster({ org_id: base.org_id, version, timestamp: nowStamp(), members, signatures: [] });
  writeDraftFile(place.draftFile, draft);
  const what = verb === 'add' ? `added ${name} as ${role}` : verb === 'remove' ? `removed ${name}` : `set ${name} to ${role}`;
  say(
    values,
    { file: place.draftFile, roster: draft },
    [
      `${what}: roster ${draft.org_id} v${draft.version} is a draft at ${place.draftFile} (unsigned, not in force)`,
      `  put it in force with "parley roster sign --as HANDLE" (an admin's key) or "parley roster sign" (the hub key); drop it with "parley roster discard"`,
    ].join('\n'),
  );
  return 0;
}

/** Local mode: the hub's own access setting for a participant, at once. */
async function setLocalAccess(place: RosterPlace, values: { json?: boolean | undefined }, hub: HubRoster, pubkey: string, role: Access): Promise<number> {
  const participant = hub.participants.find((p) => p.pubkey === pubkey);
  if (!participant) throw new ParleyError('NOT_FOUND', `No participant with key ${pubkey} on the running hub; check the key, or give @HANDLE.`, { field: 'member' });
  await place.admin().setAccess(participant.handle, role);
  say(values, { mode: 'local', handle: participant.handle, access: role }, `local mode (no roster): @${participant.handle} is now ${role} on the running hub (from its next call; no roster file was written)`);
  return 0;
}

export const rosterAdd = (argv: string[]): Promise<number> => edit('add', argv);
export const rosterRemove = (argv: string[]): Promise<number> => edit('remove', argv);
export const rosterSetRole = (argv: string[]): Promise<number> => edit('set-role', argv);

export async function rosterVerify(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv);
  if (helped('verify', values.help)) return 0;
  noExtra(positionals, 1, 'parley roster verify [FILE]');
  const place = placeOf(values);
  const file = positionals[0] === undefined ? ((await place.draft())?.file ?? place.file) : path.resolve(positionals[0]);
  const roster = readRosterFile(file);
  const hub = await place.hub();
  const current = hub?.roster ? parseRoster(hub.roster) : undefined;
  const checks: string[] = [];
  try {
    // On its own: signed, every signature valid and by an admin of the roster itself.
    acceptRoster(undefined, roster);
    checks.push(`signatures: ${roster.signatures.length} valid, by admins of v${roster.version}`);
    if (current) {
      if (current.org_id === roster.org_id && current.version === roster.version) {
        if (Buffer.compare(rosterSigningBytes(roster), rosterSigningBytes(current)) !== 0) {
          throw new ParleyError('ROSTER_ROLLBACK', `${file}: version ${roster.version} differs from version ${current.version} in force; a changed roster needs a higher version.`, { field: 'version' });
        }
        checks.push(`the running hub has this version in force (${current.org_id} v${current.version})`);
      } else {
        acceptRoster(current, roster);
        checks.push(`the running hub (v${current.version}) would accept it`);
      }
    }
  } catch (error) {
    if (!isParleyError(error)) throw error;
    say(values, { ok: false, file, code: error.code, field: error.field ?? null, message: error.message }, `FAIL  ${file}: ${error.message}`);
    return 1;
  }
  say(values, { ok: true, file, org_id: roster.org_id, version: roster.version, checks }, [`ok  roster ${roster.org_id} v${roster.version} (${file})`, ...checks.map((c) => `  ${c}`)].join('\n'));
  return 0;
}
