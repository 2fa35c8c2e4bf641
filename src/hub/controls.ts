// Steering controls. Each is stored as a `control` event whose
// content has the spec's shape, with participants named by id; its effect on
// the thread (mute set, pause, policy…) is applied in the same write.

import { controlKindOf, type ControlParsed, type SignedChannelPolicy } from '../schema/control.js';
import type { ProfilePatch } from '../schema/participant.js';
import { TO_ALL } from '../schema/event.js';
import { redactInput } from './authored-input.js';
import { nextSignedPolicy } from './channel-access.js';
import type { HubContext } from './context.js';
import type { DeliveryReason } from './delivery-reason.js';
import { enterSession, ensureParticipant } from './directory.js';
import { resolveMember } from './caller.js';
import type { Caller } from './records.js';
import { acceptControl, reachOf } from './message-rules.js';
import { current, type Admitted } from './gate.js';
import { membershipOf, saveMembership, saveThreadState } from './threads.js';
import type { ParticipantRecord, ThreadRecord } from './records.js';
import { transact, type Transaction } from './writer.js';
import type { ControlResult } from './answers.js';

export async function applyControl(ctx: HubContext, { caller, thread: named, input }: Admitted<{ thread: string; control: ControlParsed }, ThreadRecord>): Promise<ControlResult> {
  const { control } = input;
  // An invitation's profile is free text from the inviter: scanned like any other.
  let redacted = false;
  if ('invite' in control && control.invite.profile !== undefined) {
    const profile = await redactInput(ctx, control.invite.profile);
    control.invite.profile = profile.value;
    redacted = profile.redacted;
  }
  const thread = current(ctx, named);
  const me = caller.participant;
  const kind = controlKindOf(control);

  // Every participant named, found before anything is written.
  const targetsOf = (handles: string[], field: string): ParticipantRecord[] => handles.map((h, i) => resolveMember(ctx, caller, h, `control.${field}.${i}`));
  const targets =
    'mute' in control
      ? targetsOf(control.mute.targets, 'mute.targets')
      : 'unmute' in control
        ? targetsOf(control.unmute.targets, 'unmute.targets')
        : 'prod' in control
          ? targetsOf(control.prod, 'prod')
          : [];
  acceptControl(ctx, caller, thread, control, targets);

  // Built and signed before the write: a refusal stores nothing.
  const signed = 'access' in control ? nextSignedPolicy(ctx, caller, thread, control.access) : undefined;

  const event = await transact(ctx, (tx) => {
    const { content, deliveries } = applyEffect(ctx, tx, caller, thread, control, targets, signed);
    const reach = reachOf(ctx, thread, me.id, deliveries);
    return tx.append({ thread, type: 'control', from: me.id, to: TO_ALL, content, ...(redacted ? { meta: { redacted: true } } : {}), reach });
  });
  return { id: event.id, seq: event.seq, thread: thread.id, control: kind };
}

type Parsed = ControlParsed;

function applyEffect(
  ctx: HubContext,
  tx: Transaction,
  caller: Caller,
  thread: ThreadRecord,
  control: Parsed,
  targets: ParticipantRecord[],
  signed: SignedChannelPolicy | undefined,
): { content: unknown; deliveries: Array<{ participantId: string; reason: DeliveryReason }> } {
  const me = caller.participant;
  const ids = targets.map((t) => t.id);
  const notify = (reason: DeliveryReason) => ids.map((participantId) => ({ participantId, reason }));
  if ('mute' in control || 'unmute' in control) {
    const muting = 'mute' in control;
    for (const target of targets) {
      const membership = membershipOf(thread, target.id);
      saveMembership(ctx, thread, {
        ...membership,
        hardMuted: muting,
        ...(muting ? { mutedBy: me.handle } : { mutedBy: undefined }),
      });
    }
    const content = muting ? { mute: { targets: ids, mode: 'hard' } } : { unmute: { targets: ids } };
    return { content, deliveries: notify('control') };
  }
  if ('pause' in control) {
    thread.state = { ...thread.state, paused: control.pause.on, ...(control.pause.on ? { pausedBy: me.handle } : { pausedBy: undefined }) };
    saveThreadState(ctx, thread);
    return { content: control, deliveries: [] };
  }
  if ('prod' in control) return { content: { prod: ids }, deliveries: notify('prod') };
  if ('done' in control) {
    thread.state = { ...thread.state, done: control.done, ...(control.done ? { doneBy: me.handle } : { doneBy: undefined }) };
    saveThreadState(ctx, thread);
    return { content: control, deliveries: [] };
  }
  if ('ttl_seconds' in control) {
    const ttl = control.ttl_seconds;
    thread.state =
      ttl === null
        ? { ...thread.state, ttlSeconds: undefined, expiresAt: undefined }
        : { ...thread.state, ttlSeconds: ttl, expiresAt: new Date(ctx.now() + ttl * 1000).toISOString() };
    saveThreadState(ctx, thread);
    return { content: control, deliveries: [] };
  }
  if ('discussion' in control) {
    const { on, allow_agent_mentions: allow } = control.discussion;
    thread.state = { ...thread.state, discussion: { on, allowAgentMentions: allow ?? on, by: me.handle } };
    saveThreadState(ctx, thread);
    return { content: { discussion: { on, allow_agent_mentions: allow ?? on } }, deliveries: [] };
  }
  if ('invited_auto' in control) {
    const on = control.invited_auto.on;
    thread.state = { ...thread.state, invitedAuto: on, ...(on ? { invitedAutoBy: me.handle } : { invitedAutoBy: undefined }) };
    saveThreadState(ctx, thread);
    return { content: control, deliveries: [] };
  }
  if ('pin' in control) {
    const on = control.pin.on;
    thread.state = { ...thread.state, pinned: on, ...(on ? { pinnedBy: me.handle } : { pinnedBy: undefined }) };
    saveThreadState(ctx, thread);
    return { content: control, deliveries: [] };
  }
  if ('access' in control) {
    if (!signed) throw new Error('an access control is signed before its write');
    // The stored event carries the signed policy, so anyone holding the signer's key can check it later.
    thread.state = { ...thread.state, access: signed };
    saveThreadState(ctx, thread);
    return { content: { access: signed }, deliveries: [] };
  }
  // invite: the invited participant persists on the thread, registered if new to the hub.
  const { participant_id: handle, profile } = control.invite;
  // An invitation never changes who someone is: the profile given stays on the invitation.
  const invitee = ctx.state.participantByHandle(handle) ?? ensureParticipant(ctx, handle, profile);
  inviteInto(ctx, tx, caller, thread, invitee, profile);
  return {
    content: { invite: { participant_id: invitee.id, handle: invitee.handle, ...(profile === undefined ? {} : { profile }) } },
    deliveries: [{ participantId: invitee.id, reason: 'invite' }],
  };
}

/**
 * An invitation's effect, whoever set it (here, or on a linked hub): the
 * invited participant joins the session and the thread, subscribed, marked
 * invited, with the invitation's profile.
 */
export function inviteInto(ctx: HubContext, tx: Transaction, caller: Caller, thread: ThreadRecord, invitee: ParticipantRecord, profile: ProfilePatch | undefined): void {
  enterSession(ctx, tx, caller.session, invitee);
  const membership = membershipOf(thread, invitee.id);
  saveMembership(ctx, thread, {
    ...membership,
    subscription: membership.subscription === 'unsubscribed' ? 'subscribed' : membership.subscription,
    invited: true,
    ...(profile === undefined ? {} : { inviteProfile: profile }),
  });
}
