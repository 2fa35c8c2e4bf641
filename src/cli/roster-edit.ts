import type { HubRoster } from '../client/hub-admin.js';
import { ParleyError } from '../errors/parley-error.js';
import type { Access } from '../schema/access.js';
import { writeDraftFile } from '../trust/roster-draft.js';
import { parseRoster } from '../trust/roster.js';
import type { CommandArgs, CommandRun } from './command.js';
import type { ROSTER_ADD_OPTIONS, ROSTER_OPTIONS } from './command-options.js';
import { HELPS, noExtra, nowStamp, placeOf, roleOf, rosterHelp, say } from './roster-args.js';
import type { RosterPlace } from './roster-place.js';
import { addFromPeerSelf } from './roster-add-from.js';

/**
 * `parley roster add|remove|set-role`: one edit of the member list, saved in
 * the draft, a file of its own beside the roster file, one version above the
 * roster in force and unsigned (`parley roster sign` puts it in force). In
 * local mode (no roster file, none in force) `set-role` sets the hub's local
 * access instead.
 */

/**
 * add, remove and set-role: one edit of the member list, saved in the draft.
 * A draft keeps its version; a new one is one above the roster it starts
 * from. A fresh timestamp, and no signatures: they would not cover the change.
 */
async function edit(verb: 'add' | 'remove' | 'set-role', { values, positionals }: CommandArgs<typeof ROSTER_ADD_OPTIONS>): Promise<number> {
  const usage = HELPS[verb].split('\n')[0]!.replace('Usage: ', '');
  const place = placeOf(values);
  if (verb === 'add' && values.from !== undefined) {
    noExtra(positionals, 0, usage);
    return addFromPeerSelf(place, values, values.from, values.role === undefined ? 'member' : roleOf(values.role, '--role'));
  }
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

export const rosterAdd: CommandRun<typeof ROSTER_ADD_OPTIONS> = { help: rosterHelp('add'), run: (args) => edit('add', args) };
// Remove and set-role take the roster options only: parsed with those, they carry no --role or --archive.
export const rosterRemove: CommandRun<typeof ROSTER_OPTIONS> = { help: rosterHelp('remove'), run: (args) => edit('remove', args) };
export const rosterSetRole: CommandRun<typeof ROSTER_OPTIONS> = { help: rosterHelp('set-role'), run: (args) => edit('set-role', args) };
