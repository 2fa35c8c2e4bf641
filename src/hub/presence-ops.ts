// Declaring one's presence, and seeing everyone's in the session.

import type { PresenceInput } from '../schema/inputs.js';
import { redactInput } from './authored-input.js';
import type { Caller } from './records.js';
import type { HubContext } from './context.js';
import type { Admitted } from './gate.js';
import type { PresenceInfo } from './presence.js';

/** Applies the caller's declared presence (a newer seq already applied wins) and announces it. */
export async function setPresence(
  ctx: HubContext,
  { caller, thread, input }: Admitted<PresenceInput>,
): Promise<{ applied: boolean; presence: PresenceInfo | undefined }> {
  const note = (await redactInput(ctx, input.note)).value;
  const { participant, session } = caller;
  const presence = ctx.presence.set(session.id, participant, {
    state: input.state,
    ...(input.seq === undefined ? {} : { seq: input.seq }),
    ...(thread ? { thread: thread.id } : {}),
    ...(note === undefined ? {} : { note }),
  });
  if (presence) ctx.bus.publish({ kind: 'presence', session: session.id, presence });
  return { applied: presence !== undefined, presence: presence ?? ctx.presence.get(session.id, participant.id) };
}

/** Presence of every participant of the session (offline without a live connection). */
export function whoIsHere(ctx: HubContext, caller: Caller): PresenceInfo[] {
  const { session } = caller;
  return [...session.members].map((id): PresenceInfo => {
    const p = ctx.state.participant(id);
    // A participant a linked hub hosts: as its hub gossips it, under that hub's name.
    const known = p.hub === undefined ? ctx.presence.get(session.id, id) : ctx.remotePresence.get(session.id, id);
    if (known) return known;
    return {
      participant: id,
      handle: p.handle,
      state: 'offline',
      connection: 'offline',
      seq: 0,
      lastSeen: new Date(0).toISOString(),
      details: { profile: p.profile },
      ...(p.hub === undefined ? {} : { hub: p.hub }),
    };
  });
}
