// Where an event lands in one participant's inbox, and whether they are
// expected to respond (the participation policy, computed by the
// hub and shown to agents as a hint).

import { TO_ALL, type ParleyEvent } from '../schema/event.js';
import { reachesWithoutChat } from './chat-exclusion.js';
import { controlReachesMembers } from './control-reach.js';
import type { HubContext } from './context.js';
import type { WakeOn } from '../schema/participant.js';
import type { ThreadRecord } from './records.js';
import type { DeliveryReason } from './delivery-reason.js';
import type { InboxReason, Priority } from './answers.js';

export interface Placement {
  priority: Priority;
  reason: InboxReason;
  /**
   * Low items are delivered but never wake a waiting participant; channel
   * messages wake only one whose wakeOn is `all`.
   */
  wakes: boolean;
}

export type ThreadPolicy = 'permissive' | 'conservative';

export function memberCount(thread: ThreadRecord): number {
  let n = 0;
  for (const m of thread.members.values()) if (m.subscription !== 'unsubscribed' || m.invited) n += 1;
  return n;
}

export function threadPolicy(ctx: HubContext, thread: ThreadRecord): ThreadPolicy {
  if (thread.kind === 'dm') return 'permissive';
  const discussion = thread.state.discussion;
  if (discussion) return discussion.on ? 'permissive' : 'conservative';
  return memberCount(thread) <= ctx.config.participation.permissiveMaxMembers ? 'permissive' : 'conservative';
}

export function isThreadDone(ctx: HubContext, thread: ThreadRecord): boolean {
  if (thread.state.done || thread.state.closed) return true;
  return thread.state.expiresAt !== undefined && Date.parse(thread.state.expiresAt) <= ctx.now();
}

/**
 * Where `event` goes for `participantId`, or undefined when it is not for them.
 * Without chat (`chatOpen` false: the toggle is off or their kind is excluded)
 * only requests addressed to them and responses to their requests land.
 * `wakeOn` is the participant's choice of what wakes it (see wake-on.ts).
 */
export function placementOf(
  thread: ThreadRecord,
  event: ParleyEvent,
  participantId: string,
  targetReason: DeliveryReason | undefined,
  chatOpen: boolean,
  wakeOn: WakeOn,
): Placement | undefined {
  if (event.from === participantId) return undefined;
  if (!chatOpen && !reachesWithoutChat(targetReason)) return undefined;
  // A DM's creation is bookkeeping; its first message is what matters.
  if (thread.kind === 'dm' && event.type === 'system') return undefined;
  if (targetReason !== undefined) return { priority: 'high', reason: targetReason, wakes: true };
  // A control not addressed to this reader lands only if it changes the whole thread (control-reach.ts).
  if (event.type === 'control' && !controlReachesMembers(event)) return undefined;
  const membership = thread.members.get(participantId);
  if (!membership) return undefined;
  if (membership.subscription === 'subscribed') return { priority: 'normal', reason: 'channel', wakes: wakeOn === 'all' };
  if (membership.subscription === 'muted') return { priority: 'low', reason: 'muted', wakes: false };
  return undefined;
}

/**
 * Whether the live inbox stream pushes an item: everything placed but the
 * channel messages its reader chose not to be woken by (wakeOn `addressed`),
 * which wait in the inbox to be read. Muted ones still go, at low priority.
 */
export function pushes(placement: Placement): boolean {
  return placement.wakes || placement.reason !== 'channel';
}

/** True when the reader is expected to answer this event. */
export function respondHint(
  ctx: HubContext,
  thread: ThreadRecord,
  event: ParleyEvent,
  readerId: string,
  reason: InboxReason,
): boolean {
  if (event.from === readerId) return false;
  const author = ctx.state.participants.get(event.from);
  switch (reason) {
    case 'request':
    case 'dm':
    case 'direct':
    case 'prod':
    case 'invite':
    case 'response':
      return true;
    case 'mention': {
      const discussion = thread.state.discussion;
      if (discussion?.on && !discussion.allowAgentMentions && author?.kind === 'agent') return false;
      return true;
    }
    case 'control':
      return false;
    default:
      break;
  }
  if (event.type !== 'message' || isThreadDone(ctx, thread)) return false;
  if (thread.state.invitedAuto && thread.members.get(readerId)?.invited && author?.kind === 'human' && event.to === TO_ALL) {
    const mentions = event.meta?.mentions ?? [];
    if (mentions.length === 0) return true;
  }
  return threadPolicy(ctx, thread) === 'permissive';
}
