// Threads: channels (named), DMs (two participants) and side channels (linked
// from a parent, visible, closed with a summary threaded back). Creation and
// renames are `system` events in the log; the threads table is derived.

import { ParleyError, parseInput } from '../errors/parley-error.js';
import { initialControlState } from '../schema/control.js';
import { TO_ALL, type ParleyEvent } from '../schema/event.js';
import { ChannelNameSchema, ThreadTitleSchema, UlidSchema } from '../schema/names.js';
import type { ThreadInfo } from '../schema/views.js';
import type { HubContext } from './context.js';
import type { MembershipRecord, SessionRecord, ThreadKind, ThreadRecord } from './records.js';
import { dmKeyOf } from './state.js';
import type { Transaction } from './writer.js';

export type { ThreadInfo } from '../schema/views.js';

/** Whether a participant may see a thread: everyone in the session, except for DMs (their two members only). */
export function canSee(thread: ThreadRecord, participantId: string): boolean {
  return thread.kind !== 'dm' || thread.members.has(participantId);
}

/** The side channel of `parent` with that id, if this hub holds one. */
export function sideChannelOf(ctx: Pick<HubContext, 'state'>, parent: ThreadRecord, id: string): ThreadRecord | undefined {
  const side = ctx.state.threads.get(id);
  return side?.kind === 'side' && side.parentId === parent.id ? side : undefined;
}

export function threadInfo(thread: ThreadRecord, viewerId?: string): ThreadInfo {
  let members = 0;
  for (const m of thread.members.values()) if (m.subscription !== 'unsubscribed' || m.invited) members += 1;
  const membership = viewerId === undefined ? undefined : thread.members.get(viewerId);
  return {
    id: thread.id,
    kind: thread.kind,
    name: thread.name,
    ...(thread.parentId === undefined ? {} : { parent: thread.parentId }),
    closed: thread.state.closed,
    paused: thread.state.paused,
    done: thread.state.done,
    members,
    ...(membership ? { subscription: membership.subscription } : {}),
  };
}

/**
 * Writes a membership through to the store and the in-memory thread. A new
 * member's cursor starts now: their inbox holds what happens from here on, not
 * the thread's whole backlog (history() shows that).
 */
export function saveMembership(ctx: HubContext, thread: ThreadRecord, membership: MembershipRecord): void {
  if (!thread.members.has(membership.participantId)) {
    ctx.store.deliveries.advance(membership.participantId, thread.id, ctx.state.nextSeq - 1);
  }
  ctx.store.threads.upsertMember({
    thread_id: thread.id,
    participant_id: membership.participantId,
    subscription: membership.subscription,
    invited: membership.invited ? 1 : 0,
    invite_profile: membership.inviteProfile === undefined ? null : JSON.stringify(membership.inviteProfile),
    hard_muted: membership.hardMuted ? 1 : 0,
    muted_by: membership.mutedBy ?? null,
  });
  thread.members.set(membership.participantId, membership);
}

export function membershipOf(thread: ThreadRecord, participantId: string): MembershipRecord {
  return (
    thread.members.get(participantId) ?? {
      participantId,
      subscription: 'unsubscribed',
      invited: false,
      hardMuted: false,
    }
  );
}

/** Subscribes a participant unless they already chose a subscription for this thread. */
export function ensureSubscribed(ctx: HubContext, thread: ThreadRecord, participantId: string): void {
  if (thread.members.has(participantId)) return;
  saveMembership(ctx, thread, { ...membershipOf(thread, participantId), subscription: 'subscribed' });
}

export function saveThreadState(ctx: HubContext, thread: ThreadRecord): void {
  ctx.store.threads.saveState(thread.id, JSON.stringify(thread.state));
}

export interface NewThread {
  session: SessionRecord;
  kind: ThreadKind;
  name: string;
  createdBy: string;
  parent?: ThreadRecord;
  dmKey?: string;
  members: string[];
  /** Its id, when it is not new: a side channel opened on a linked hub keeps that hub's id on every hub. */
  id?: string;
}

/** Creates a thread inside a transaction: the row, its members, and its `thread.created` event. */
export function createThread(ctx: HubContext, tx: Transaction, spec: NewThread): { thread: ThreadRecord; event: ParleyEvent } {
  const thread = insertThread(ctx, spec);
  const event = tx.append({
    thread,
    type: 'system',
    from: spec.createdBy,
    to: TO_ALL,
    content: {
      action: 'thread.created',
      kind: thread.kind,
      name: thread.name,
      ...(thread.parentId ? { parent: thread.parentId } : {}),
    },
  });
  return { thread, event };
}

/**
 * A thread's row and members, inside a transaction, with no event: what
 * createThread announces, and the thread made here for what a linked hub
 * sent (its author's hub announced it there; this hub has no key to sign
 * an announcement by that author).
 */
export function insertThread(ctx: HubContext, spec: NewThread): ThreadRecord {
  const thread: ThreadRecord = {
    id: spec.id ?? ctx.newId(),
    sessionId: spec.session.id,
    kind: spec.kind,
    name: spec.name,
    ...(spec.parent ? { parentId: spec.parent.id } : {}),
    ...(spec.dmKey ? { dmKey: spec.dmKey } : {}),
    createdBy: spec.createdBy,
    createdSeq: ctx.state.nextSeq,
    state: initialControlState(),
    members: new Map(),
  };
  ctx.store.threads.insert({
    id: thread.id,
    session_id: thread.sessionId,
    kind: thread.kind,
    name: thread.name,
    parent_id: thread.parentId ?? null,
    dm_key: thread.dmKey ?? null,
    created_by: thread.createdBy,
    created_seq: thread.createdSeq,
    state: JSON.stringify(thread.state),
  });
  ctx.state.addThread(thread);
  for (const member of new Set([spec.createdBy, ...spec.members])) {
    saveMembership(ctx, thread, { participantId: member, subscription: 'subscribed', invited: false, hardMuted: false });
  }
  return thread;
}

export function parseChannelName(name: string, field = 'name'): string {
  return parseInput(ChannelNameSchema, name, field);
}

export function parseThreadTitle(title: string, field = 'name'): string {
  return parseInput(ThreadTitleSchema, title, field);
}

export function assertEventInThread(ctx: Pick<HubContext, 'store'>, thread: ThreadRecord, eventId: string, field: string): void {
  parseInput(UlidSchema, eventId, field);
  const row = ctx.store.events.byId(eventId);
  if (!row || row.thread_id !== thread.id) {
    throw new ParleyError('NOT_FOUND', `No event ${eventId} in thread "${thread.name}"; ${field} must name an event of the same thread.`, { field });
  }
}

export { dmKeyOf };
