import { parseInput } from '../errors/parley-error.js';
import { SeqSchema } from '../schema/names.js';
import type { ThreadDetail, ThreadMemberView } from '../schema/views.js';
import type { HubContext } from './context.js';
import { resolveFor, type Seat } from './seat.js';
import { threadInfo } from './threads.js';

export type { ThreadDetail };
import { writeNow } from './writer.js';

/**
 * What a human steering a thread needs to see at once: its steering state
 * with who set each control, and every member with their own standing (muted
 * by whom, invited). Participants are named by handle, as people speak of them.
 */
export function threadDetail(ctx: HubContext, seat: Seat, ref: string): ThreadDetail {
  const thread = resolveFor(ctx, seat, ref);
  const handleOf = (id: string | undefined) => (id === undefined ? undefined : (ctx.state.participants.get(id)?.handle ?? id));
  const by = (id: string | undefined) => {
    const handle = handleOf(id);
    return handle === undefined ? {} : { by: handle };
  };
  const state = thread.state;
  const members: ThreadMemberView[] = [];
  for (const m of thread.members.values()) {
    const participant = ctx.state.participants.get(m.participantId);
    if (!participant) continue;
    const mutedBy = handleOf(m.mutedBy);
    members.push({
      handle: participant.handle,
      kind: participant.profile.kind,
      subscription: m.subscription,
      invited: m.invited,
      hardMuted: m.hardMuted,
      ...(m.hardMuted && mutedBy !== undefined ? { mutedBy } : {}),
    });
  }
  members.sort((a, b) => a.handle.localeCompare(b.handle));
  // Controls record the handle of who set them; handleOf also reads an id, should one be stored.
  const pausedBy = handleOf(state.pausedBy);
  const doneBy = handleOf(state.doneBy);
  return {
    thread: threadInfo(thread, seat.participant.id),
    controls: {
      paused: state.paused,
      ...(state.paused && pausedBy !== undefined ? { pausedBy } : {}),
      done: state.done,
      ...(state.done && doneBy !== undefined ? { doneBy } : {}),
      ...(state.ttlSeconds === undefined ? {} : { ttlSeconds: state.ttlSeconds }),
      ...(state.expiresAt === undefined ? {} : { expiresAt: state.expiresAt }),
      discussion: {
        on: state.discussion?.on ?? false,
        allowAgentMentions: state.discussion?.allowAgentMentions ?? false,
        ...by(state.discussion?.by),
      },
      invitedAuto: state.invitedAuto,
      ...(state.invitedAuto && state.invitedAutoBy !== undefined ? { invitedAutoBy: handleOf(state.invitedAutoBy) } : {}),
      closed: state.closed,
      ...(state.summary === undefined ? {} : { summary: state.summary }),
    },
    members,
    readUpTo: ctx.store.deliveries.cursor(seat.participant.id, thread.id),
  };
}

/**
 * Marks a thread read up to a seq, as a person who has seen it on the page:
 * the hub-kept cursor moves forward (never back) and targeted items up to
 * there count as delivered, exactly as after reading them with readNew.
 */
export function markRead(ctx: HubContext, seat: Seat, ref: string, upTo: number): { readUpTo: number } {
  const thread = resolveFor(ctx, seat, ref);
  const seq = Math.min(parseInput(SeqSchema, upTo, 'up_to'), ctx.store.events.visibleUpTo);
  const me = seat.participant.id;
  const cursor = ctx.store.deliveries.cursor(me, thread.id);
  if (seq > cursor) {
    const now = ctx.now();
    writeNow(ctx, () => {
      ctx.store.deliveries.advance(me, thread.id, seq);
      ctx.store.deliveries.markThreadDelivered(me, thread.id, seq, now);
    });
  }
  return { readUpTo: Math.max(seq, cursor) };
}
