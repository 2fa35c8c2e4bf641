// Finding what a caller names: a participant of its session by handle, a
// thread by any name it is shown with.

import { ParleyError } from '../errors/parley-error.js';
import type { HubContext } from './context.js';
import type { Caller, ParticipantRecord, ThreadRecord } from './records.js';
import { hubNameOf } from './hub-name.js';
import { resolveThreadRef } from './thread-ref.js';

/**
 * Finds a participant of the caller's session by handle, or by
 * `handle@hubname` for one a linked hub hosts. A bare handle held on more
 * than one hub is refused, naming each (`handle@hubname`): the caller names
 * one. This hub's own participant is `handle@` and this hub's name.
 */
export function resolveMember(ctx: Pick<HubContext, 'state' | 'config'>, caller: Caller, handle: string, field: string): ParticipantRecord {
  const participant = findParticipant(ctx, caller, handle, field);
  if (!participant || !caller.session.members.has(participant.id)) {
    throw new ParleyError(
      'NOT_FOUND',
      `No participant "@${handle}" in session "${caller.session.name}". Check the handle, or have them join the session first.`,
      { field },
    );
  }
  return participant;
}

function findParticipant(ctx: Pick<HubContext, 'state' | 'config'>, caller: Caller, ref: string, field: string): ParticipantRecord | undefined {
  const at = ref.indexOf('@');
  const handle = at < 0 ? ref : ref.slice(0, at);
  const hub = at < 0 ? undefined : ref.slice(at + 1).toLowerCase();
  const holders = [...ctx.state.participantsByOwnHandleOf(handle)].filter((p) => caller.session.members.has(p.id));
  const self = hubNameOf(ctx.config);
  // A linked hub's participant by that hub's name; this hub's own by this hub's name.
  if (hub !== undefined) {
    const named = holders.filter((p) => (p.hub ?? self).toLowerCase() === hub);
    if (named.length > 1) {
      // Hubs that share a name (hubs on one machine all take its host name unless given one) cannot be told apart by it.
      throw new ParleyError('INVALID_INPUT', `Invalid ${field}: @${ref.replace(/^@/, '')} names more than one participant: ${named.length} hubs here go by the name "${hub}". Each hub needs a name of its own (peers.name); "parley doctor" names them.`, { field });
    }
    return named[0];
  }
  if (holders.length > 1) {
    const names = holders.map((p) => `@${handle}@${p.hub ?? self}${p.hub === undefined ? ' (this hub)' : ''}`);
    throw new ParleyError('INVALID_INPUT', `Invalid ${field}: @${handle} is held on more than one hub: ${names.join(', ')}. Name one as handle@hubname.`, { field });
  }
  return holders[0];
}

/**
 * Finds a thread of the caller's session by any name it is shown with (see
 * thread-ref.ts). A DM is visible only to its two participants: to anyone
 * else it does not exist.
 */
export function resolveFor(ctx: Pick<HubContext, 'state'>, caller: Caller, ref: string, field = 'thread'): ThreadRecord {
  return resolveThreadRef(ctx, caller, ref, field);
}
