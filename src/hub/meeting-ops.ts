// Meetings: ephemeral `meeting` threads that live only in memory and
// never touch the store. Saying something joins the meeting if needed; the
// text goes through the same secret scanner as chat, with the meeting's limit.
// Each participant's last-heard line is kept in the meeting, so REST, MCP and
// the CLI hear from the same place unless a caller names a number.

import { parseInput } from '../errors/parley-error.js';
import type { Meeting, MeetingMember } from '../meeting/meeting.js';
import type { MeetingMessage } from '../meeting/ring.js';
import { MeetingHearInputSchema, MeetingNameSchema, MeetingSayInputSchema, MeetingStatusInputSchema, type MeetingHearInput } from '../schema/inputs.js';
import type { HeardMessage, HearView, MeetingStatusView, MeetingSummary, MeetingView, RingView } from '../schema/views.js';
import type { HubContext } from './context.js';
import { assertTextSize } from './text-size.js';
import type { Caller } from './records.js';

export type { HearView, HeardMessage, MeetingStatusView, MeetingSummary, MeetingView, RingView };

const memberView = (m: MeetingMember) => ({ handle: m.handle, role: m.role, joinedAt: new Date(m.joinedAt).toISOString() });
const messageView = (m: MeetingMessage): HeardMessage => ({ number: m.number, speaker: m.speaker, ts: new Date(m.ts).toISOString(), content: m.content });

/** Enters a meeting (creating it if new): a write, unless already in it (see entries.ts). `name` is parsed. */
export function joinMeeting(ctx: HubContext, caller: Caller, name: string): MeetingView {
  return enterMeeting(ctx, caller, name);
}

function enterMeeting(ctx: HubContext, caller: Caller, name: string): MeetingView {
  const meeting = ctx.meetings.getOrCreate(caller.session.id, name, ctx.now());
  const me = caller.participant;
  const wasMember = meeting.isMember(me.id);
  // Callers of members that are gone are freed before the cap is applied: ghosts do not fill a room.
  if (!wasMember && meeting.active >= meeting.maxParticipants) dropGhosts(ctx, meeting);
  meeting.join({ id: me.id, handle: me.handle, ...(me.profile.roles[0] ? { role: me.profile.roles[0] } : {}) }, ctx.now());
  if (!wasMember) ctx.bus.publish({ kind: 'meeting', session: caller.session.id, meeting: meeting.name, action: 'joined', participant: me.handle });
  return { id: meeting.id, name: meeting.name, who: meeting.who().map(memberView) };
}

export function leaveMeeting(ctx: HubContext, caller: Caller, name: string): { left: boolean } {
  const meeting = ctx.meetings.get(caller.session.id, parseInput(MeetingNameSchema, name, 'meeting'));
  const left = meeting.leave(caller.participant.id);
  if (left) ctx.bus.publish({ kind: 'meeting', session: caller.session.id, meeting: meeting.name, action: 'left', participant: caller.participant.handle });
  return { left };
}

/** A participant that went offline leaves every meeting of the session it was in. */
export function leaveEveryMeeting(ctx: Pick<HubContext, 'meetings' | 'bus'>, session: string, participant: { id: string; handle: string }): void {
  for (const meeting of ctx.meetings.list(session)) {
    if (meeting.leave(participant.id)) ctx.bus.publish({ kind: 'meeting', session, meeting: meeting.name, action: 'left', participant: participant.handle });
  }
}

/**
 * Removes the members that are gone: no live connection and not seen for the
 * presence TTL (a caller taken with one-shot calls, whose client never said it left).
 */
export function dropGhosts(ctx: HubContext, meeting: Meeting): void {
  for (const member of meeting.who()) {
    if (!ctx.presence.isGone(meeting.sessionId, member.id)) continue;
    meeting.leave(member.id);
    ctx.bus.publish({ kind: 'meeting', session: meeting.sessionId, meeting: meeting.name, action: 'left', participant: member.handle });
  }
}

/** One write per line said: saying enters the meeting if need be, at no extra cost. */
export async function sayInMeeting(ctx: HubContext, caller: Caller, input: { meeting: string; text: string }): Promise<{ number: number; truncated: boolean; redacted: boolean }> {
  const parsed = parseInput(MeetingSayInputSchema, input);
  assertTextSize(ctx, parsed.text, 'text');
  enterMeeting(ctx, caller, parsed.meeting);
  const redaction = await ctx.meetingRedactor.apply(parsed.text);
  const meeting = ctx.meetings.get(caller.session.id, parsed.meeting);
  if (!meeting.isMember(caller.participant.id)) enterMeeting(ctx, caller, parsed.meeting);
  const said = meeting.say({ id: caller.participant.id, handle: caller.participant.handle }, redaction.text, ctx.now());
  ctx.bus.publish({
    kind: 'meeting',
    session: caller.session.id,
    meeting: meeting.name,
    action: 'said',
    participant: caller.participant.handle,
    message: said.message,
  });
  return { number: said.message.number, truncated: redaction.truncated || said.truncated, redacted: redaction.redacted };
}

export function hearInMeeting(ctx: HubContext, caller: Caller, input: MeetingHearInput): HearView {
  const parsed = parseInput(MeetingHearInputSchema, input);
  const meeting = ctx.meetings.get(caller.session.id, parsed.meeting);
  const heard = meeting.hear(parsed.last_heard, caller.participant.id, parsed.limit);
  return { messages: heard.messages.map(messageView), messages_lost: heard.messagesLost, last_heard: heard.lastHeard };
}

export function meetingWho(ctx: HubContext, caller: Caller, name: string): MeetingView {
  const meeting = ctx.meetings.get(caller.session.id, parseInput(MeetingNameSchema, name, 'meeting'));
  return { id: meeting.id, name: meeting.name, who: meeting.who().map(memberView) };
}

export function meetingStatus(ctx: HubContext, caller: Caller, input: { meeting: string; last_heard?: number | undefined }): MeetingStatusView {
  const parsed = parseInput(MeetingStatusInputSchema, input);
  const meeting = ctx.meetings.get(caller.session.id, parsed.meeting);
  const from = parsed.last_heard ?? meeting.lastHeardBy(caller.participant.id);
  return { ...meeting.status(from, caller.participant.id), last_heard: from };
}

export function listMeetings(ctx: HubContext, caller: Caller): MeetingSummary[] {
  return ctx.meetings.list(caller.session.id).map((m) => ({ id: m.id, name: m.name, active: m.active, latest: m.ring.latest }));
}

export function meetingRing(ctx: HubContext, caller: Caller, name: string): RingView {
  const meeting = ctx.meetings.get(caller.session.id, parseInput(MeetingNameSchema, name, 'meeting'));
  // From the ring itself: no reader, so nobody's own lines are skipped and no one's last-heard moves.
  const heard = meeting.ring.hear(0, '');
  const oldest = meeting.ring.oldest;
  const latest = meeting.ring.latest;
  return {
    id: meeting.id,
    name: meeting.name,
    who: meeting.who().map(memberView),
    oldest,
    latest,
    dropped: latest === 0 ? 0 : oldest - 1,
    messages: heard.messages.map(messageView),
  };
}
