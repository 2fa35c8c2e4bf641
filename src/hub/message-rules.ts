// The rules every message passes, in one place: for a post, a DM, a request,
// a response, a control or an envelope, whether it is accepted (and the
// error when not), and who it reaches, with which reason (the reason ranks
// its priority). Each check runs once per message, after the operation's
// last await, so that what is checked is what is stored; the gate's checks
// (closing, caller, chat, access, the thread's policy, rate) are not repeated.

import { ParleyError } from '../errors/parley-error.js';
import { controlKindOf, type ControlParsed } from '../schema/control.js';
import { TERMINAL_STATUSES, TO_ALL, type EventMeta, type RequestStatus } from '../schema/event.js';
import { assertAddresseeMayRead, mayRead } from './channel-access.js';
import { assertReachableByChat, chatOpenFor, reachesWithoutChat } from './chat-exclusion.js';
import type { Caller } from './records.js';
import type { HubContext } from './context.js';
import { REASON_RANK, type DeliveryReason, type Reach } from './delivery-reason.js';
import { findMentions } from './mentions.js';
import type { ParticipantRecord, ThreadRecord } from './records.js';
import { assertEventInThread, canSee } from './threads.js';
import type { EventDraft } from './event-draft.js';
import type { EventRow } from '../store/event-log.js';
import type { OpenedEnvelope } from './envelope-opening.js';

/** What the rules read: the config, the records, the log (reply_to, request ids) and each participant's standing. */
type RulesContext = Pick<HubContext, 'config' | 'state' | 'store' | 'access'>;
type EnvelopeRulesContext = Pick<HubContext, 'store' | 'envelopes'>;

// Steering -------------------------------------------------------------------

/** Refuses a write into a thread its steering does not allow (closed; the writer muted; paused, for all but humans); nothing is stored. */
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
 * caller's access (admin, checked at the gate); an admin steers regardless of
 * pause and mute, so no control can lock out the one who lifts it. Only a
 * closed side channel takes no more controls.
 */
export function assertMaySteer(thread: ThreadRecord, field = 'thread'): void {
  assertNotClosed(thread, field);
}

function assertNotClosed(thread: ThreadRecord, field: string): void {
  if (thread.state.closed) {
    throw new ParleyError('THREAD_CLOSED', `Side channel "${thread.name}" is closed; its summary is in the parent thread. Post in the parent instead.`, { field });
  }
}

/** A DM's events may address only its two participants. */
export function assertCanSee(thread: ThreadRecord, participantId: string | undefined, field: string): void {
  if (participantId === undefined || canSee(thread, participantId)) return;
  throw new ParleyError('INVALID_INPUT', `Invalid ${field}: this is a direct-message thread; only its two participants can be addressed in it.`, { field });
}

// Reach ----------------------------------------------------------------------

/**
 * Whether an event of `from` in `thread` reaches `participantId` for
 * `reason`: never its author; only a reader of the thread (a DM's two
 * participants, a channel's policy's readers); and, for a participant
 * without chat, only requests and responses.
 */
export function reaches(ctx: RulesContext, thread: ThreadRecord, from: string, participantId: string, reason: DeliveryReason): boolean {
  if (participantId === from || !mayRead(ctx, thread, participantId)) return false;
  return reachesWithoutChat(reason) || chatOpenFor(ctx.config, ctx.state.participant(participantId).profile);
}

/** Who an event reaches of those it names, each for its best reason. */
export function reachOf(ctx: RulesContext, thread: ThreadRecord, from: string, named: Iterable<{ participantId: string; reason: DeliveryReason }>): Reach {
  const reach = new Map<string, DeliveryReason>();
  for (const { participantId, reason } of named) {
    if (!reaches(ctx, thread, from, participantId, reason)) continue;
    const held = reach.get(participantId);
    if (held === undefined || REASON_RANK[reason] < REASON_RANK[held]) reach.set(participantId, reason);
  }
  return reach;
}

// Messages -------------------------------------------------------------------

export interface MessageSpec {
  text: string;
  truncated: boolean;
  redacted: boolean;
  /** The participant it is addressed to, found by its caller (a handle, or an envelope's key). */
  to: ParticipantRecord | undefined;
  replyTo: string | undefined;
  tags: string[] | undefined;
  /** The side channel it closes (a closing summary in the parent, from a linked hub). */
  link?: string | undefined;
  /** How errors name the addressee, reply_to and thread: a post's own fields by default, an envelope's for one. */
  fields?: { to: string; replyTo: string; thread: string };
}

/** A thread a message goes into: one that exists, or the DM with `with` its first message creates. */
export type MessagePlace = ThreadRecord | { newDmWith: ParticipantRecord };

/**
 * Refuses (thrown; nothing is stored) a message the rules do not accept:
 * the thread's steering; an addressee it cannot see, who has no chat, or (in
 * a DM) outside the roster in force; a reply_to of another thread.
 */
export function acceptMessage(ctx: RulesContext, caller: Caller, place: MessagePlace, spec: MessageSpec): void {
  const fields = spec.fields ?? { to: 'to', replyTo: 'reply_to', thread: 'thread' };
  const me = caller.participant;
  if ('newDmWith' in place) {
    assertReachableByChat(ctx.config, place.newDmWith, fields.to);
    ctx.access.requireAddressee(place.newDmWith, fields.to);
    if (spec.replyTo !== undefined) {
      throw new ParleyError('NOT_FOUND', `No event ${spec.replyTo} in your direct messages with @${place.newDmWith.handle}; ${fields.replyTo} must name an event of that DM.`, {
        field: fields.replyTo,
      });
    }
    return;
  }
  assertMayPost(caller, place, fields.thread);
  assertCanSee(place, spec.to?.id, fields.to);
  if (spec.to) assertReachableByChat(ctx.config, spec.to, fields.to);
  // A message in a DM is for its other participant, who must be in the roster in force to read it.
  if (place.kind === 'dm') {
    const field = spec.to === undefined ? fields.thread : fields.to;
    for (const memberId of place.members.keys()) if (memberId !== me.id) ctx.access.requireAddressee(ctx.state.participant(memberId), field);
  }
  if (spec.replyTo !== undefined) assertEventInThread(ctx, place, spec.replyTo, fields.replyTo);
}

/**
 * The event an accepted message becomes in its thread (in the write, where a
 * new DM exists by then): who it reaches (a DM's other participant, its
 * addressee, those it @mentions who can read it and have chat) and the meta
 * the hub computes.
 */
export function messageDraft(ctx: RulesContext, caller: Caller, thread: ThreadRecord, spec: MessageSpec): { draft: EventDraft; mentions: string[] } {
  const me = caller.participant.id;
  const named: Array<{ participantId: string; reason: DeliveryReason }> = [];
  if (thread.kind === 'dm') for (const memberId of thread.members.keys()) named.push({ participantId: memberId, reason: 'dm' });
  if (spec.to) named.push({ participantId: spec.to.id, reason: 'direct' });
  const found = findMentions(spec.text, caller.session, ctx.state);
  for (const id of found) named.push({ participantId: id, reason: 'mention' });
  const reach = reachOf(ctx, thread, me, named);
  // Other @names are plain text: in a DM only its two participants, and no one without chat, are reached.
  const mentions = found.filter((id) => reach.has(id));
  const meta: EventMeta = {
    ...(spec.replyTo === undefined ? {} : { reply_to: spec.replyTo }),
    ...(spec.tags === undefined || spec.tags.length === 0 ? {} : { tags: spec.tags }),
    ...(spec.link === undefined ? {} : { link: spec.link }),
    ...(mentions.length === 0 ? {} : { mentions }),
    ...(spec.truncated ? { truncated: true } : {}),
    ...(spec.redacted ? { redacted: true } : {}),
  };
  const draft: EventDraft = { thread, type: 'message', from: me, to: spec.to?.id ?? TO_ALL, content: spec.text, meta, reach };
  return { draft, mentions };
}

// Requests and responses -----------------------------------------------------

/**
 * Refuses a request the rules do not accept: an addressee outside the roster
 * in force; in a thread given, its steering, an addressee who cannot see or
 * read it; in the DM it goes to otherwise, that DM's steering; a request_id
 * already used. It reaches its addressee (requests reach without chat).
 */
export function acceptRequest(ctx: RulesContext, caller: Caller, target: ParticipantRecord, place: MessagePlace, requestId: string | undefined): void {
  ctx.access.requireAddressee(target, 'to');
  if (!('newDmWith' in place)) {
    assertMayPost(caller, place);
    assertCanSee(place, target.id, 'to');
    assertAddresseeMayRead(ctx, place, target, 'to');
  }
  if (requestId !== undefined && ctx.store.requests.get(requestId)) {
    throw new ParleyError('CONFLICT', `request_id ${requestId} cannot be used; choose another (a new ULID, say) or omit it.`, { field: 'request_id' });
  }
}

/** Refuses a response to a request that is closed, or that the thread's steering does not allow; it reaches the request's sender. */
export function acceptResponse(caller: Caller, thread: ThreadRecord, request: { request_id: string; status: string }): void {
  if (TERMINAL_STATUSES.has(request.status as RequestStatus)) {
    throw new ParleyError('REQUEST_CLOSED', `Request ${request.request_id} is already ${request.status}; it takes no further response.`, { field: 'request_id' });
  }
  assertMayPost(caller, thread);
}

// Controls -------------------------------------------------------------------

/**
 * Refuses a control the rules do not accept: unmuting oneself (but for an
 * admin: no one locks the admins out); a prod or an invitation of someone
 * without chat (a prod asks for an answer in chat); a target a DM does not
 * have; a closed side channel; a mute or an invitation in a DM. Who it
 * reaches is decided in its write (an invitee may be registered there).
 */
export function acceptControl(ctx: RulesContext, caller: Caller, thread: ThreadRecord, control: ControlParsed, targets: ParticipantRecord[]): void {
  const me = caller.participant;
  const kind = controlKindOf(control);
  // Anyone else who may steer (a channel's own admins, later) never lifts a mute put on themselves: that rule is not about access.
  if ('unmute' in control && ctx.access.accessOf(me) !== 'admin' && targets.some((t) => t.id === me.id) && thread.members.get(me.id)?.hardMuted) {
    throw new ParleyError('FORBIDDEN', 'You cannot unmute yourself; ask the participant who muted you, or an admin.', { field: 'control.unmute.targets' });
  }
  if ('prod' in control) targets.forEach((t, i) => assertReachableByChat(ctx.config, t, `control.prod.${i}`));
  if ('invite' in control) {
    const invitee = ctx.state.participantByHandle(control.invite.participant_id);
    if (invitee) assertReachableByChat(ctx.config, invitee, 'control.invite.participant_id');
  }
  for (const target of targets) assertCanSee(thread, target.id, `control.${kind}`);
  assertMaySteer(thread);
  if (thread.kind === 'dm' && ('invite' in control || 'mute' in control)) {
    throw new ParleyError('INVALID_INPUT', `Invalid control: ${kind} does not apply to a direct-message thread; use it on a channel or side channel.`, { field: 'control' });
  }
}

// Envelopes ------------------------------------------------------------------

/** In sync, the event an envelope carries when this hub holds it already (taken once, by id: counted, not refused). */
export function heldAlready(ctx: EnvelopeRulesContext, envelope: OpenedEnvelope): EventRow | undefined {
  if (envelope.mode !== 'sync') return undefined;
  const held = ctx.store.events.byId(envelope.fields.id);
  if (held) ctx.envelopes.drop('duplicate', new ParleyError('ENVELOPE_REJECTED', `Envelope ${envelope.fields.id} is already held.`, { field: 'envelope.id' }));
  return held;
}

/**
 * Refuses (counted) a live envelope past its TTL or from the future, or a
 * replay: its id seen or stored, or its sender_seq not after the last of its
 * author's in that thread and epoch. Checked after every other rule, so that
 * an envelope refused for its content does not use up its id: fixed, it may
 * come again. History in sync has no TTL; it is taken once by id (heldAlready).
 */
export function acceptEnvelope(ctx: EnvelopeRulesContext, author: string, thread: ThreadRecord, envelope: OpenedEnvelope): void {
  if (envelope.mode !== 'live') return;
  const { fields } = envelope;
  const gate = ctx.envelopes;
  gate.admit(fields.id, fields.ts, fields.ttl_secs);
  if (ctx.store.events.byId(fields.id)) {
    throw gate.drop('duplicate', new ParleyError('ENVELOPE_REJECTED', `Envelope ${fields.id} is already stored (a replay); it was dropped.`, { field: 'envelope.id' }));
  }
  const epoch = Buffer.from(fields.sender_epoch);
  const lastSeq = maxDefined(ctx.store.events.lastSenderSeq(author, thread.id, epoch), hubSenderSeq(ctx, author, thread.id, epoch));
  if (lastSeq !== undefined && fields.sender_seq <= lastSeq) {
    throw gate.drop(
      'duplicate',
      new ParleyError('ENVELOPE_REJECTED', `Envelope ${fields.id}: sender_seq ${fields.sender_seq} is not after ${lastSeq}, already used in this epoch; it was dropped.`, { field: 'envelope.sender_seq' }),
    );
  }
}

/**
 * The last sender_seq the hub itself gave `author` in a thread, when `epoch` is the one it signs
 * that author's events under: those events' signatures are not in their rows.
 */
function hubSenderSeq(ctx: EnvelopeRulesContext, author: string, threadId: string, epoch: Buffer): number | undefined {
  if (ctx.store.senders.epochOf(author)?.equals(epoch) !== true) return undefined;
  const seq = ctx.store.senders.lastSeq(author, threadId);
  return seq > 0 ? seq : undefined;
}

function maxDefined(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.max(a, b);
}
