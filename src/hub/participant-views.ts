// What a participant sees of itself, its sessions and the participants beside it.

import { ParleyError, parseInput } from '../errors/parley-error.js';
import { AccessSchema, type Access } from '../schema/access.js';
import { HandleSchema } from '../schema/names.js';
import { REGISTERED_PROFILE_FIELDS, SelfProfilePatchSchema, type Participant, type SelfProfilePatch, type WakeOn } from '../schema/participant.js';
import type { TrustMode } from '../schema/views.js';
import { redactInput } from './authored-input.js';
import type { Caller } from './records.js';
import type { HubContext } from './context.js';
import { ensureParticipant } from './directory.js';
import { participantView } from './records.js';
import { wakeOnFor } from './wake-on.js';
import { transact } from './writer.js';

export interface SessionView {
  id: string;
  name: string;
  createdAt: string;
  participants: number;
}

/** Who the caller is, with its access and how access is decided. */
export function whoami(
  ctx: HubContext,
  caller: Caller,
): { participant: Participant; session: { id: string; name: string }; wakeOn: WakeOn; access: Access | null; trust: TrustMode } {
  const { participant, session } = caller;
  return {
    participant: participantView(participant),
    session: { id: session.id, name: session.name },
    wakeOn: wakeOnFor(ctx.config, participant.profile),
    access: ctx.access.accessOf(participant) ?? null,
    trust: ctx.access.trust,
  };
}

/**
 * Changes the caller's own profile: only the fields given. Kind and roles are
 * not among them (an agent cannot make itself a human, who may post in paused
 * threads, nor drop the role that excludes it from chat); they are set when
 * joining.
 */
export async function updateProfile(ctx: HubContext, caller: Caller, patch: SelfProfilePatch): Promise<Participant> {
  const fixed = REGISTERED_PROFILE_FIELDS.find((key) => typeof patch === 'object' && patch !== null && key in patch);
  if (fixed) {
    throw new ParleyError(
      'INVALID_INPUT',
      `Invalid ${fixed}: a participant's kind and roles are set when it is registered ("parley join HANDLE --kind … --role …"), not by the participant itself. Leave ${fixed} out.`,
      { field: fixed },
    );
  }
  const parsed = (await redactInput(ctx, parseInput(SelfProfilePatchSchema, patch, 'profile'))).value;
  const updated = await transact(ctx, () => ensureParticipant(ctx, caller.participant.handle, parsed));
  return participantView(updated);
}

/** The participants of the caller's session, each with its access (null: outside the roster in force). */
export function participantsOf(ctx: HubContext, caller: Caller): Array<Participant & { access: Access | null }> {
  return [...caller.session.members].map((id) => {
    const record = ctx.state.participant(id);
    return { ...participantView(record), access: ctx.access.accessOf(record) ?? null };
  });
}

/** The sessions the caller has joined (a session picker); others' sessions, their names and sizes, are theirs. */
export function sessionsOf(ctx: HubContext, caller: Caller): SessionView[] {
  const me = caller.participant.id;
  return [...ctx.state.sessions.values()]
    .filter((s) => s.members.has(me))
    .map((s) => ({ id: s.id, name: s.name, createdAt: new Date(s.createdAt).toISOString(), participants: s.members.size }));
}

/** Local mode: sets a participant's access (an admin's call, or the hub owner's); it takes effect on their next call. */
export async function setAccessOf(ctx: HubContext, handle: string, access: Access): Promise<Participant & { access: Access }> {
  const target = ctx.state.participantByHandle(parseInput(HandleSchema, handle, 'handle'));
  if (!target) throw new ParleyError('NOT_FOUND', `No participant "@${handle}" on this hub; check the handle.`, { field: 'handle' });
  const parsed = parseInput(AccessSchema, access, 'access');
  await ctx.access.setLocal(target, parsed);
  return { ...participantView(target), access: parsed };
}
