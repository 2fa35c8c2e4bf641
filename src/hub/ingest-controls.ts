// Taking in a steering control its author signed on another hub: a pause, a
// close (done), a pin, a mute or an unmute set by an admin there holds here
// too, for this hub's own participants (a muted participant hosted here can
// no longer post in the thread; a paused thread takes no agent's post).

import { ParleyError } from '../errors/parley-error.js';
import type { SignedControlContent } from '../schema/inputs.js';
import { TO_ALL } from '../schema/event.js';
import type { IngestResult } from './answers.js';
import type { HubContext } from './context.js';
import type { DeliveryReason } from './delivery-reason.js';
import { sealedOf, type OpenedEnvelope } from './envelope-opening.js';
import { current, type Admitted } from './gate.js';
import { assertCanSee, assertMaySteer, heldAlready, reachOf } from './message-rules.js';
import type { Caller, ThreadRecord } from './records.js';
import { membershipOf, saveMembership, saveThreadState } from './threads.js';
import { transact } from './writer.js';

export async function takeControl(ctx: HubContext, admitted: Admitted<unknown, ThreadRecord, OpenedEnvelope>): Promise<IngestResult> {
  const { caller, envelope } = admitted;
  const control = envelope.control!;
  const held = heldAlready(ctx, envelope);
  if (held) return { id: held.id, seq: held.seq, thread: held.thread_id, duplicate: true };
  const thread = current(ctx, admitted.thread, 'envelope.thread');
  const targets = 'mute' in control ? control.mute.targets : 'unmute' in control ? control.unmute.targets : [];
  try {
    assertMaySteer(thread, 'envelope.thread');
    if (thread.kind === 'dm' && 'mute' in control) throw new ParleyError('INVALID_INPUT', 'Invalid control: mute does not apply to a direct-message thread.', { field: 'envelope.content' });
    for (const target of targets) {
      if (!ctx.state.participants.has(target)) throw new ParleyError('NOT_FOUND', `Envelope ${envelope.fields.id}: it names a participant this hub does not know (${target}).`, { field: 'envelope.content' });
      assertCanSee(thread, target, 'envelope.content');
    }
  } catch (error) {
    throw error instanceof ParleyError ? ctx.envelopes.drop('forbidden', error) : error;
  }
  const event = await transact(ctx, (tx) => {
    const deliveries = applySteering(ctx, caller, thread, control);
    return tx.append({ thread, type: 'control', from: caller.participant.id, to: TO_ALL, content: control, reach: reachOf(ctx, thread, caller.participant.id, deliveries), sealed: sealedOf(envelope) });
  });
  ctx.envelopes.accepted();
  return { id: event.id, seq: event.seq, thread: thread.id };
}

/** The control's effect on the thread, as the same control sent here has (controls.ts); who it notifies. */
function applySteering(ctx: HubContext, caller: Caller, thread: ThreadRecord, control: SignedControlContent): Array<{ participantId: string; reason: DeliveryReason }> {
  const by = caller.participant.handle;
  if ('mute' in control || 'unmute' in control) {
    const muting = 'mute' in control;
    const ids = muting ? control.mute.targets : control.unmute.targets;
    for (const id of ids) saveMembership(ctx, thread, { ...membershipOf(thread, id), hardMuted: muting, ...(muting ? { mutedBy: by } : { mutedBy: undefined }) });
    return ids.map((participantId) => ({ participantId, reason: 'control' }));
  }
  if ('pause' in control) thread.state = { ...thread.state, paused: control.pause.on, ...(control.pause.on ? { pausedBy: by } : { pausedBy: undefined }) };
  else if ('done' in control) thread.state = { ...thread.state, done: control.done, ...(control.done ? { doneBy: by } : { doneBy: undefined }) };
  else thread.state = { ...thread.state, pinned: control.pin.on, ...(control.pin.on ? { pinnedBy: by } : { pinnedBy: undefined }) };
  saveThreadState(ctx, thread);
  return [];
}
