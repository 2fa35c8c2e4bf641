import fs from 'node:fs';
import { ParleyError } from '../errors/parley-error.js';
import type { Access } from '../schema/access.js';
import { PeerSelfSchema, type PeerSelfFile } from '../schema/peer-self.js';
import type { RosterMember } from '../schema/roster.js';
import { hubIdOf, parsePublicKey } from '../trust/node-id.js';
import { writeDraftFile } from '../trust/roster-draft.js';
import { parseRoster } from '../trust/roster.js';
import { nowStamp, say, type placeOf } from './roster-args.js';

/** As in local mode: a human is an admin, an agent an operator (it may still put a blocking question to a human). */
const DEFAULT_ROLE: Record<PeerSelfFile['participants'][number]['kind'], Access> = { human: 'admin', agent: 'operator' };

/** What `parley peer self --json` on another hub wrote, checked field by field (the hub id must be its key's). */
export function readPeerSelfFile(file: string): PeerSelfFile {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new ParleyError('INVALID_INPUT', `Cannot read --from ${file}: ${(error as Error).message}. Give the file "parley peer self --json" wrote on the other hub.`, { field: 'from' });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ParleyError('INVALID_INPUT', `Invalid --from ${file}: not JSON. Give the file "parley peer self --json" wrote on the other hub.`, { field: 'from' });
  }
  const parsed = PeerSelfSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = (issue?.path ?? []).map(String).join('.') || 'from';
    throw new ParleyError('INVALID_INPUT', `Invalid --from ${file}: field ${field} ${issue?.message ?? 'is invalid'}. Write it again with "parley peer self --json".`, { field: `from.${field}` });
  }
  if (hubIdOf(parsePublicKey(parsed.data.key)) !== parsed.data.id) {
    throw new ParleyError('INVALID_INPUT', `Invalid --from ${file}: its id ${parsed.data.id} is not the id of its key ${parsed.data.key}; the file was edited. Write it again with "parley peer self --json".`, { field: 'from.id' });
  }
  return parsed.data;
}

/**
 * `parley roster add --from FILE [--role ROLE]`: the hub a `peer self --json`
 * file describes (as a hub member, with ROLE, member by default) and every
 * participant it hosts (humans admin, agents operator), into the draft. Keys
 * the roster already lists keep their entry; the hub's own key may not be a
 * participant's.
 */
export async function addFromPeerSelf(place: ReturnType<typeof placeOf>, values: { json?: boolean | undefined }, file: string, hubRole: Access): Promise<number> {
  const peer = readPeerSelfFile(file);
  const { roster: base, draft: fromDraft } = await place.base();
  const members: RosterMember[] = base.members.map((m) => ({ ...m }));
  const listed = new Map(members.map((m, i) => [m.pubkey, i]));
  const kept: string[] = [];
  const hubAt = listed.get(peer.key);
  if (hubAt !== undefined && members[hubAt]!.kind !== 'hub') {
    throw new ParleyError('CONFLICT', `The key of hub ${peer.name} (${peer.key}) is already a participant member of roster ${base.org_id}; a hub's key and a participant's are never the same. Remove it first.`, {
      field: 'from.key',
    });
  }
  if (hubAt === undefined) members.push({ pubkey: peer.key, role: hubRole, kind: 'hub' });
  else kept.push(`hub ${peer.name}`);
  const added: string[] = hubAt === undefined ? [`hub ${peer.name} as ${hubRole}`] : [];
  for (const p of peer.participants) {
    const at = listed.get(p.key);
    if (at !== undefined || p.key === peer.key) {
      kept.push(`@${p.handle}`);
      continue;
    }
    const role = DEFAULT_ROLE[p.kind];
    members.push({ pubkey: p.key, role });
    listed.set(p.key, members.length - 1);
    added.push(`@${p.handle} as ${role}`);
  }
  const version = fromDraft ? base.version : base.version + 1;
  const draft = parseRoster({ org_id: base.org_id, version, timestamp: nowStamp(), members, signatures: [] });
  writeDraftFile(place.draftFile, draft);
  say(
    values,
    { file: place.draftFile, roster: draft, added, kept },
    [
      `added ${added.length === 0 ? 'nothing new' : added.join(', ')}${kept.length ? ` (already members: ${kept.join(', ')})` : ''}: roster ${draft.org_id} v${draft.version} is a draft at ${place.draftFile} (unsigned, not in force)`,
      `  put it in force with "parley roster sign --as HANDLE" (an admin's key) or "parley roster sign" (the hub key); drop it with "parley roster discard"`,
    ].join('\n'),
  );
  return 0;
}
