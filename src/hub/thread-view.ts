import type { ChannelAccessView, ThreadDetail, ThreadMemberView } from '../schema/views.js';
import type { HubContext } from './context.js';
import type { ThreadRecord } from './records.js';
import { governingChannel } from './channel-access.js';
import type { Admitted } from './gate.js';
import { advanceReadCursor } from './reading.js';
import { dmPeer } from './thread-ref.js';
import { threadInfo } from './threads.js';
import { stripUndefined } from '../util/objects.js';
import { keyTextOf } from './participant-key.js';

export type { ThreadDetail };

/**
 * What a human steering a thread needs to see at once: its steering state
 * with who set each control, and every member with their own standing (muted
 * by whom, invited). Participants are named by handle, as people speak of them.
 */
export function threadDetail(ctx: HubContext, { caller, thread }: Admitted<unknown, ThreadRecord>): ThreadDetail {
  const peer = dmPeer(ctx, thread, caller.participant.id);
  const state = thread.state;
  const members: ThreadMemberView[] = [];
  for (const m of thread.members.values()) {
    const participant = ctx.state.participants.get(m.participantId);
    if (!participant) continue;
    members.push(
      stripUndefined({
        handle: participant.handle,
        kind: participant.profile.kind,
        subscription: m.subscription,
        invited: m.invited,
        hardMuted: m.hardMuted,
        mutedBy: m.hardMuted ? m.mutedBy : undefined,
      }),
    );
  }
  members.sort((a, b) => a.handle.localeCompare(b.handle));
  // Controls record the handle of whoever set them (see controls.ts), so they are shown as stored.
  return {
    thread: { ...threadInfo(thread, caller.participant.id), ...(peer === undefined ? {} : { with: peer }) },
    controls: stripUndefined({
      paused: state.paused,
      pausedBy: state.paused ? state.pausedBy : undefined,
      done: state.done,
      doneBy: state.done ? state.doneBy : undefined,
      ttlSeconds: state.ttlSeconds,
      expiresAt: state.expiresAt,
      discussion: stripUndefined({
        on: state.discussion?.on ?? false,
        allowAgentMentions: state.discussion?.allowAgentMentions ?? false,
        by: state.discussion?.by,
      }),
      invitedAuto: state.invitedAuto,
      invitedAutoBy: state.invitedAuto ? state.invitedAutoBy : undefined,
      pinned: state.pinned,
      pinnedBy: state.pinned ? state.pinnedBy : undefined,
      closed: state.closed,
      summary: state.summary,
    }),
    members,
    readUpTo: ctx.store.deliveries.cursor(caller.participant.id, thread.id),
    ...accessViewOf(ctx, thread),
  };
}

function accessViewOf(ctx: HubContext, thread: ThreadRecord): { access?: ChannelAccessView } {
  const channel = governingChannel(ctx, thread);
  const signed = channel?.state.access;
  if (!channel || !signed) return {};
  const handles: Record<string, string> = {};
  for (const p of ctx.state.participants.values()) {
    const key = keyTextOf(p);
    const named = [signed.policy.readers, signed.policy.writers, signed.policy.admins].some((list) => list.some((s) => 'key' in s && s.key === key));
    if (named || key === signed.signer) handles[key] = p.handle;
  }
  return { access: { ...signed, channel: channel.name, handles } };
}

/**
 * Marks a thread read up to a seq, as a person who has seen it on the page:
 * the hub-kept cursor moves forward (never back) and targeted items up to
 * there count as delivered, exactly as after reading them with readNew.
 */
export function markRead(ctx: HubContext, { caller, thread, input }: Admitted<{ up_to: number }, ThreadRecord>): { readUpTo: number } {
  const seq = Math.min(input.up_to, ctx.store.events.visibleUpTo);
  const me = caller.participant.id;
  const cursor = ctx.store.deliveries.cursor(me, thread.id);
  if (seq > cursor) advanceReadCursor(ctx, me, thread.id, seq);
  return { readUpTo: Math.max(seq, cursor) };
}
