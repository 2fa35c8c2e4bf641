// The one place a thread reference becomes a thread. Every name Parley shows
// for a thread is accepted wherever a thread is named (library, REST, MCP,
// CLI), so each surface passes what the user typed through unchanged:
//
// - the thread id (a ULID);
// - `@handle`: the DM between the caller and that participant;
// - a DM's shown name, `dm:a,b`, with the handles in any order (and `dm:b`
//   alone meaning the caller's DM with b);
// - a channel's name, with or without `#`;
// - any other thread's shown name (a side channel's title, a renamed DM), when
//   exactly one thread the caller can see has it.
//
// A thread the caller cannot see (another session's, a DM of others) is not
// found, exactly like one that does not exist.

import { ParleyError } from '../errors/parley-error.js';
import { ChannelNameSchema, HandleSchema } from '../schema/names.js';
import type { HubContext } from './context.js';
import type { Caller } from './records.js';
import { dmKeyOf } from './state.js';
import type { ThreadRecord } from './records.js';
import { canSee } from './threads.js';

const ULID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const DM_PREFIX = 'dm:';

export function resolveThreadRef(ctx: Pick<HubContext, 'state'>, caller: Caller, ref: string, field = 'thread'): ThreadRecord {
  const trimmed = ref.trim();
  const found = lookUp(ctx, caller, trimmed, field);
  if (!found || found.sessionId !== caller.session.id || !canSee(found, caller.participant.id)) {
    throw threadNotFound(caller, trimmed, field, isDmRef(trimmed) ? 'start-dm' : 'list-threads');
  }
  return found;
}

function lookUp(ctx: Pick<HubContext, 'state'>, caller: Caller, ref: string, field: string): ThreadRecord | undefined {
  if (ULID_PATTERN.test(ref)) return ctx.state.threads.get(ref);
  // A DM by its handles; what names none may still be a side channel's title ("dm: next steps").
  const handles = ref.startsWith('@') ? [ref] : isDmRef(ref) ? ref.slice(DM_PREFIX.length).split(',') : [];
  const dm = handles.length === 0 || handles.length > 2 ? undefined : dmWith(ctx, caller, handles);
  if (dm) return dm;
  const channel = ChannelNameSchema.safeParse(ref);
  if (channel.success) {
    const found = ctx.state.channel(caller.session.id, channel.data);
    if (found) return found;
  }
  return byShownName(ctx, caller, ref, field);
}

function isDmRef(ref: string): boolean {
  return ref.startsWith('@') || ref.toLowerCase().startsWith(DM_PREFIX);
}

/** The DM between the participants `handles` name, the caller included when only one other is named. */
function dmWith(ctx: Pick<HubContext, 'state'>, caller: Caller, handles: string[]): ThreadRecord | undefined {
  const ids = new Set<string>();
  for (const handle of handles) {
    const parsed = HandleSchema.safeParse(handle);
    const participant = parsed.success ? ctx.state.participantByHandle(parsed.data) : undefined;
    if (!participant || !caller.session.members.has(participant.id)) return undefined;
    ids.add(participant.id);
  }
  if (ids.size === 1 && !ids.has(caller.participant.id)) ids.add(caller.participant.id);
  if (ids.size !== 2) return undefined;
  const [a, b] = [...ids] as [string, string];
  return ctx.state.dm(caller.session.id, dmKeyOf(a, b));
}

/** A side channel or renamed DM by the name it is shown with; two with one name are named by id instead. */
function byShownName(ctx: Pick<HubContext, 'state'>, caller: Caller, ref: string, field: string): ThreadRecord | undefined {
  const wanted = ref.toLowerCase();
  const matches = ctx.state
    .threadsOf(caller.session.id)
    .filter((t) => t.kind !== 'channel' && t.name.toLowerCase() === wanted && canSee(t, caller.participant.id));
  if (matches.length > 1) {
    throw new ParleyError(
      'INVALID_INPUT',
      `Invalid ${field}: "${ref}" names ${matches.length} threads; name the one you mean by its id (${matches.map((t) => t.id).join(', ')}).`,
      { field },
    );
  }
  return matches[0];
}

/** The one answer for a thread the caller cannot use, whether it is missing, of another session, or a DM of others. */
export function threadNotFound(caller: Caller, ref: string, field: string, hint: 'list-threads' | 'start-dm' = 'list-threads'): ParleyError {
  return new ParleyError('NOT_FOUND', `No thread "${ref}" in session "${caller.session.name}".`, { field, hint });
}

/** The linked hub hosting a DM's other participant, when another hub hosts them (thread lists name it). */
export function dmPeerHub(ctx: Pick<HubContext, 'state'>, thread: ThreadRecord, viewerId: string): { withHub: string } | Record<string, never> {
  const hub = dmOther(ctx, thread, viewerId)?.hub;
  return hub ? { withHub: hub } : {};
}

/** The other participant of a DM, as the caller sees it: DMs are shown by that handle. */
export function dmPeer(ctx: Pick<HubContext, 'state'>, thread: ThreadRecord, viewerId: string): string | undefined {
  return dmOther(ctx, thread, viewerId)?.handle;
}

function dmOther(ctx: Pick<HubContext, 'state'>, thread: ThreadRecord, viewerId: string) {
  if (thread.kind !== 'dm') return undefined;
  for (const id of thread.members.keys()) {
    if (id !== viewerId) return ctx.state.participants.get(id);
  }
  return undefined;
}
