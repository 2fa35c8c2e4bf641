import { ParleyError } from '../errors/parley-error.js';
import type { HubContext } from './context.js';
import type { ParticipantRecord, SessionRecord, ThreadRecord } from './state.js';
import { resolveThreadRef } from './thread-ref.js';

/** Who acts, and in which session: every operation runs in exactly one. */
export interface Caller {
  participant: ParticipantRecord;
  session: SessionRecord;
}

/** Finds a participant of the caller's session by handle. */
export function resolveMember(ctx: HubContext, caller: Caller, handle: string, field: string): ParticipantRecord {
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

/** Refuses a message or request the thread's steering does not allow; nothing is stored. */
export function assertMayPost(caller: Caller, thread: ThreadRecord, field = 'thread'): void {
  const me = caller.participant;
  assertNotClosed(thread, field);
  const membership = thread.members.get(me.id);
  if (membership?.hardMuted) {
    throw new ParleyError(
      'PARTICIPANT_MUTED',
      `You (@${me.handle}) are muted in thread "${thread.name}"${membership.mutedBy ? ` by @${membership.mutedBy}` : ''}; your message was not stored. Keep listening and wait to be unmuted.`,
      { field, details: { thread: thread.id } },
    );
  }
  if (thread.state.paused && me.kind !== 'human') {
    throw new ParleyError(
      'THREAD_PAUSED',
      `Thread "${thread.name}" is paused${thread.state.pausedBy ? ` by @${thread.state.pausedBy}` : ''}: only humans may post until it is resumed; your message was not stored. Wait for a resume.`,
      { field, details: { thread: thread.id } },
    );
  }
}

/**
 * Refuses a control the thread does not take. Who may steer at all is the
 * caller's access (admin, checked before this, see permissions.ts); an admin
 * steers regardless of pause and mute, so no control can lock out the one who
 * lifts it. Only a closed side channel takes no more controls.
 */
export function assertMaySteer(thread: ThreadRecord, field = 'thread'): void {
  assertNotClosed(thread, field);
}

function assertNotClosed(thread: ThreadRecord, field: string): void {
  if (thread.state.closed) {
    throw new ParleyError(
      'THREAD_CLOSED',
      `Side channel "${thread.name}" is closed; its summary is in the parent thread. Post in the parent instead.`,
      { field },
    );
  }
}

/**
 * Finds a thread of the caller's session by any name it is shown with (see
 * thread-ref.ts). A DM is visible only to its two participants: to anyone
 * else it does not exist.
 */
export function resolveFor(ctx: HubContext, caller: Caller, ref: string, field = 'thread'): ThreadRecord {
  return resolveThreadRef(ctx, caller, ref, field);
}
