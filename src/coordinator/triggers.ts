/**
 * Who should answer (the conservative participation policy): a participant is
 * run for what is addressed to it — a DM, a message `to` it, an @mention, a
 * request — for a prod, and, where a thread has invited_auto on, for a human's
 * to-all message without @mentions when it is invited there. Everything else
 * new in the thread is context for that run, not a reason to start one;
 * responses to its own requests never start one (they would let two agents
 * answer each other forever).
 */

import { TO_ALL, type ParleyEvent } from '../schema/event.js';
import type { ParticipantKind } from '../schema/participant.js';
import type { ThreadDetail } from '../schema/views.js';
import { isCoordinatorNotice } from './notice-tag.js';

export type TriggerKind = 'dm' | 'direct' | 'mention' | 'request' | 'prod' | 'invited_auto';

/** An event that asks for an answer, why, and how deep in an exchange between agents it is (see loop-guard.ts). */
export interface Trigger {
  event: ParleyEvent;
  kind: TriggerKind;
  depth: number;
}

export interface Reader {
  id: string;
  handle: string;
}

/** Why `event` asks `reader` to answer, or undefined. `authorKind` is the kind of the event's author. */
export function triggerOf(event: ParleyEvent, reader: Reader, detail: ThreadDetail, authorKind: ParticipantKind | undefined): TriggerKind | undefined {
  // A refusal notice addressed to its author tells it something; it asks nothing (answering it would start a loop of its own).
  if (event.from === reader.id || isCoordinatorNotice(event)) return undefined;
  if (event.type === 'request') return event.to === reader.id ? 'request' : undefined;
  if (event.type === 'control') return prodded(event, reader) ? 'prod' : undefined;
  if (event.type !== 'message') return undefined;
  if (detail.thread.kind === 'dm') return 'dm';
  if (event.to === reader.id) return 'direct';
  const mentions = event.meta?.mentions ?? [];
  if (mentions.includes(reader.id)) {
    // A discussion that does not let agents' mentions count (see participation.ts): the hub says no answer is expected.
    const { discussion } = detail.controls;
    return discussion.on && !discussion.allowAgentMentions && authorKind === 'agent' ? undefined : 'mention';
  }
  if (detail.controls.invitedAuto && event.to === TO_ALL && mentions.length === 0 && authorKind === 'human' && invitedIn(detail, reader.handle)) {
    return 'invited_auto';
  }
  return undefined;
}

function prodded(event: ParleyEvent, reader: Reader): boolean {
  const prod = (event.content as { prod?: unknown } | null)?.prod;
  return Array.isArray(prod) && prod.includes(reader.id);
}

function invitedIn(detail: ThreadDetail, handle: string): boolean {
  return detail.members.some((m) => m.handle.toLowerCase() === handle.toLowerCase() && m.invited);
}
