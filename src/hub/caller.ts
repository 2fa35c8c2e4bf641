// Finding what a caller names: a participant of its session by handle, a
// thread by any name it is shown with.

import { ParleyError } from '../errors/parley-error.js';
import type { HubContext } from './context.js';
import type { Caller, ParticipantRecord, ThreadRecord } from './records.js';
import { resolveThreadRef } from './thread-ref.js';

/** Finds a participant of the caller's session by handle. */
export function resolveMember(ctx: Pick<HubContext, 'state'>, caller: Caller, handle: string, field: string): ParticipantRecord {
  const participant = ctx.state.participantByHandle(handle);
  if (!participant || !caller.session.members.has(participant.id)) {
    throw new ParleyError(
      'NOT_FOUND',
      `No participant "@${handle}" in session "${caller.session.name}". Check the handle, or have them join the session first.`,
      { field },
    );
  }
  return participant;
}

/**
 * Finds a thread of the caller's session by any name it is shown with (see
 * thread-ref.ts). A DM is visible only to its two participants: to anyone
 * else it does not exist.
 */
export function resolveFor(ctx: Pick<HubContext, 'state'>, caller: Caller, ref: string, field = 'thread'): ThreadRecord {
  return resolveThreadRef(ctx, caller, ref, field);
}
