// Taking in a control its author signed on another hub: steering set by an
// admin there (a pause, a close, a mute, a prod, an invitation, a TTL, the
// discussion mode, an access policy…) holds here too, for this hub's own
// participants (a muted participant hosted here can no longer post in the
// thread; a prodded or invited one hosted here is told).

import { ParleyError } from '../errors/parley-error.js';
import type { SecretSearch } from '../redaction/redactor.js';
import type { SignedControlContent } from '../schema/inputs.js';
import { TO_ALL } from '../schema/event.js';
import type { IngestResult } from './answers.js';
import { supersedesPolicy } from './channel-access.js';
import type { HubContext } from './context.js';
import type { DeliveryReason } from './delivery-reason.js';
import { inviteInto } from './controls.js';
import { sealedOf, type OpenedEnvelope } from './envelope-opening.js';
import { current, type Admitted } from './gate.js';
import { assertCanSee, assertMaySteer, heldAlready, reachOf } from './message-rules.js';
import { keyTextOf } from './participant-key.js';
import type { Caller, ThreadRecord } from './records.js';
import { membershipOf, saveMembership, saveThreadState } from './threads.js';
import { transact, type Transaction } from './writer.js';

type Deliveries = Array<{ participantId: string; reason: DeliveryReason }>;

/** `scanned`: the secret scan of an invitation's profile (the one free text a control holds). */
export async function takeControl(ctx: HubContext, admitted: Admitted<unknown, ThreadRecord, OpenedEnvelope>, scanned?: SecretSearch): Promise<IngestResult> {
  const { caller, envelope } = admitted;
  const control = envelope.control!;
  const secrets = scanned ?? (await ctx.redactor.find(controlTextsOf(control)));
  const held = heldAlready(ctx, envelope);
  if (held) return { id: held.id, seq: held.seq, thread: held.thread_id, duplicate: true };
  const thread = current(ctx, admitted.thread, 'envelope.thread');
  let newPolicy = false;
  try {
    if (secrets.spans.some((spans) => spans.length > 0)) {
      throw new ParleyError('INVALID_INPUT', `Envelope ${envelope.fields.id}: its invitation's profile holds a secret, and a signed control cannot be redacted; it was dropped.`, { field: 'envelope.content' });
    }
    assertMaySteer(thread, 'envelope.thread');
    if (thread.kind === 'dm' && ('mute' in control || 'invite' in control)) {
      throw new ParleyError('INVALID_INPUT', `Invalid control: ${Object.keys(control)[0]} does not apply to a direct-message thread.`, { field: 'envelope.content' });
    }
    for (const target of targetsOf(control)) {
      if (!ctx.state.participants.has(target)) throw new ParleyError('NOT_FOUND', `Envelope ${envelope.fields.id}: it names a participant this hub does not know (${target}).`, { field: 'envelope.content' });
      if (!('invite' in control)) assertCanSee(thread, target, 'envelope.content');
    }
    if ('access' in control) newPolicy = supersedesPolicy(ctx, thread, control.access, keyTextOf(caller.participant), 'envelope.content.access');
  } catch (error) {
    throw error instanceof ParleyError ? ctx.envelopes.drop(error.code === 'BAD_SIGNATURE' ? 'badSignature' : 'forbidden', error) : error;
  }
  const event = await transact(ctx, (tx) => {
    const deliveries = applySteering(ctx, tx, caller, thread, control, { signedAt: envelope.fields.ts, newPolicy });
    return tx.append({ thread, type: 'control', from: caller.participant.id, to: TO_ALL, content: control, reach: reachOf(ctx, thread, caller.participant.id, deliveries), sealed: sealedOf(envelope) });
  });
  ctx.envelopes.accepted();
  return { id: event.id, seq: event.seq, thread: thread.id };
}

/** What a control's secret scan looks at: the texts of an invitation's profile. */
export function controlTextsOf(control: unknown): string[] {
  const profile = (control as { invite?: { profile?: Record<string, unknown> } }).invite?.profile;
  if (!profile) return [];
  return Object.values(profile).flatMap((value) => (typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []));
}

/** The participants a control names, by id. */
function targetsOf(control: SignedControlContent): string[] {
  if ('mute' in control) return control.mute.targets;
  if ('unmute' in control) return control.unmute.targets;
  if ('prod' in control) return control.prod;
  if ('invite' in control) return [control.invite.participant_id];
  return [];
}

/**
 * The control's effect on the thread, as the same control set here has
 * (controls.ts), and who it notifies. A TTL runs from when its author set it
 * (`signedAt`), so that the thread ends at the same moment on every hub; an
 * access policy takes the place of the one in force only when `newPolicy`.
 */
function applySteering(ctx: HubContext, tx: Transaction, caller: Caller, thread: ThreadRecord, control: SignedControlContent, at: { signedAt: number; newPolicy: boolean }): Deliveries {
  const by = caller.participant.handle;
  const setState = (state: Partial<ThreadRecord['state']>): Deliveries => {
    thread.state = { ...thread.state, ...state };
    saveThreadState(ctx, thread);
    return [];
  };
  if ('mute' in control || 'unmute' in control) {
    const muting = 'mute' in control;
    const ids = muting ? control.mute.targets : control.unmute.targets;
    for (const id of ids) saveMembership(ctx, thread, { ...membershipOf(thread, id), hardMuted: muting, ...(muting ? { mutedBy: by } : { mutedBy: undefined }) });
    return ids.map((participantId) => ({ participantId, reason: 'control' }));
  }
  if ('prod' in control) return control.prod.map((participantId) => ({ participantId, reason: 'prod' }));
  if ('invite' in control) return invite(ctx, tx, caller, thread, control.invite);
  if ('pause' in control) return setState({ paused: control.pause.on, pausedBy: control.pause.on ? by : undefined });
  if ('done' in control) return setState({ done: control.done, doneBy: control.done ? by : undefined });
  if ('pin' in control) return setState({ pinned: control.pin.on, pinnedBy: control.pin.on ? by : undefined });
  if ('invited_auto' in control) return setState({ invitedAuto: control.invited_auto.on, invitedAutoBy: control.invited_auto.on ? by : undefined });
  if ('discussion' in control) return setState({ discussion: { on: control.discussion.on, allowAgentMentions: control.discussion.allow_agent_mentions, by } });
  if ('ttl_seconds' in control) {
    const ttl = control.ttl_seconds;
    return setState(ttl === null ? { ttlSeconds: undefined, expiresAt: undefined } : { ttlSeconds: ttl, expiresAt: new Date(at.signedAt + ttl * 1000).toISOString() });
  }
  return at.newPolicy ? setState({ access: control.access }) : [];
}

/** An invitation: the invited participant (known here, maybe hosted here) joins the session and the thread, and is told. */
function invite(ctx: HubContext, tx: Transaction, caller: Caller, thread: ThreadRecord, invitation: Extract<SignedControlContent, { invite: unknown }>['invite']): Deliveries {
  const invitee = ctx.state.participants.get(invitation.participant_id)!;
  inviteInto(ctx, tx, caller, thread, invitee, invitation.profile);
  return [{ participantId: invitee.id, reason: 'invite' }];
}
