// The participants linked hubs host, as this hub keeps them: registered from
// each peer's signed hello, under the handle that hub gives them, with the
// hub that hosts them. They have no token and no key here: they act only
// through events they signed, handed in by the hub that hosts them.

import { ProfileSchema, type ParticipantKind, type Profile } from '../schema/participant.js';
import { HandleSchema } from '../schema/names.js';
import { formatPublicKey, participantIdOf } from '../trust/node-id.js';
import type { HubContext } from './context.js';
import { addToSession } from './directory.js';
import type { ParticipantRecord } from './records.js';
import { transact } from './writer.js';

/** A participant as a linked hub's hello names it. */
export interface HostedElsewhere {
  key: Uint8Array;
  handle: string;
  kind: ParticipantKind;
}

/** The linked hub that hosts participants: its key (`ed25519:…`) and its name. */
export interface HostingHub {
  key: string;
  name: string;
}

/**
 * Registers (or brings up to date) the participants `hub` says it hosts, and
 * puts them in the default session, where their hub's events first reach
 * them. A key this hub hosts itself is left alone (a hub cannot claim this
 * hub's participants); a handle taken here already is kept as
 * `handle@hubname`, so both stay apart.
 */
export async function hostParticipants(ctx: HubContext, hub: HostingHub, participants: readonly HostedElsewhere[], defaultSession: string): Promise<ParticipantRecord[]> {
  return transact(ctx, () => {
    const session = ctx.state.sessionByName(defaultSession);
    const hosted: ParticipantRecord[] = [];
    for (const entry of participants) {
      const record = hostOne(ctx, hub, entry);
      if (!record) continue;
      hosted.push(record);
      if (session) addToSession(ctx, session, record);
    }
    return hosted;
  });
}

function hostOne(ctx: HubContext, hub: HostingHub, entry: HostedElsewhere): ParticipantRecord | undefined {
  const id = participantIdOf(entry.key);
  const existing = ctx.state.participants.get(id);
  if (existing && existing.hubKey === undefined) {
    ctx.logger.warn('a linked hub names a participant this hub hosts; it is left as it is', { peer: hub.key, participant: existing.handle });
    return undefined;
  }
  const handle = handleFor(ctx, hub, entry.handle, id);
  const profile: Profile = ProfileSchema.parse({ ...(existing?.profile ?? {}), kind: entry.kind });
  if (existing) {
    if (existing.handle === handle && existing.kind === entry.kind && existing.hubKey === hub.key && existing.hub === hub.name) return existing;
    ctx.store.directory.updateHosted({ id, handle, kind: entry.kind, profile: JSON.stringify(profile), hub_key: hub.key, hub_name: hub.name });
    ctx.state.rehandle(existing, handle);
    existing.kind = entry.kind;
    existing.profile = profile;
    existing.hubKey = hub.key;
    existing.hub = hub.name;
    return existing;
  }
  const createdAt = ctx.now();
  const raw = Buffer.from(entry.key);
  ctx.store.directory.insertParticipant({ id, handle, kind: entry.kind, profile: JSON.stringify(profile), public_key: raw, created_at: createdAt, hub_key: hub.key, hub_name: hub.name });
  const record: ParticipantRecord = {
    id,
    handle,
    kind: entry.kind,
    profile,
    publicKey: raw.toString('base64'),
    createdAt: new Date(createdAt).toISOString(),
    hubKey: hub.key,
    hub: hub.name,
  };
  ctx.state.addParticipant(record);
  return record;
}

/** The handle a participant of `hub` is kept under: its own, or `handle@hubname` when another participant holds that one here. */
function handleFor(ctx: HubContext, hub: HostingHub, handle: string, id: string): string {
  const holder = ctx.state.participantByHandle(handle);
  if (!holder || holder.id === id) return handle;
  const keyPart = hub.key.slice('ed25519:'.length, 'ed25519:'.length + 8);
  const qualified = `${handle}@${hub.name || keyPart}`;
  const other = ctx.state.participantByHandle(qualified);
  return !other || other.id === id ? qualified : `${handle}@${keyPart}`;
}

/** A participant as a peer serving history names it: its key, handle and kind, and the hub that hosts it. */
export interface NamedByPeer extends HostedElsewhere {
  hub: Uint8Array;
  hubName: string;
}

/**
 * Registers the authors a peer's history names that this hub does not know
 * yet (their hub may be away, or never linked here), each as hosted by the
 * hub the peer names, when a roster this hub accepted lists that hub (one
 * removed since wrote history too). A participant this hub knows is left as
 * it is: its own hub's hello says who it is. Their events are still checked
 * one by one (signature, the roster in force when written, rules).
 */
export async function hostNamedByPeer(ctx: HubContext, named: readonly NamedByPeer[], defaultSession: string): Promise<void> {
  const hubs = new Set(ctx.rosters.chain().flatMap((roster) => roster.members.filter((member) => member.kind === 'hub').map((member) => member.pubkey)));
  const self = formatPublicKey(ctx.keys.hub().raw);
  const fresh = named.filter((entry) => {
    if (ctx.state.participants.has(participantIdOf(entry.key))) return false;
    const hub = formatPublicKey(entry.hub);
    return hub !== self && hubs.has(hub) && HandleSchema.safeParse(entry.handle).success;
  });
  for (const entry of fresh) await hostParticipants(ctx, { key: formatPublicKey(entry.hub), name: entry.hubName }, [entry], defaultSession);
}
