/**
 * What each frame of the live stream (live.ts) changes on the page: an event
 * joins its thread's log and the counts; presence updates the person it is
 * of; a meeting line joins the ring on screen. What a frame does not carry
 * (thread badges, requests, delivery states) is read again, once per burst.
 */

import type { MeetingFrame, ParleyEvent, PresenceInfo } from '../types.js';
import { inBackground } from './background.js';
import { seeMeeting } from './meeting-seen.js';
import { markRead } from './open-view.js';
import { refreshDetail, refreshForYou, refreshMeetings, refreshParticipants, refreshRequests, refreshRing, refreshSent, refreshThreads } from './refreshers.js';
import { logOf, logVersion, me, meetingRing, meetings, noteResponses, participants, presence, threads, view } from './view-state.js';

let markReadTimer: ReturnType<typeof setTimeout> | undefined;

/** Runs a refresh once for a burst of events (a replay after reconnecting can bring hundreds). */
const pending = new Map<string, ReturnType<typeof setTimeout>>();
function soon(key: string, refresh: () => Promise<void>): void {
  if (pending.has(key)) return;
  pending.set(
    key,
    setTimeout(() => {
      pending.delete(key);
      inBackground(refresh(), `reading ${key} again after a live event`);
    }, 50),
  );
}

/** An event from the live stream (or its replay after a reconnect). */
export function applyEvent(event: ParleyEvent): void {
  const log = logOf(event.thread);
  const onScreen = view.value.kind === 'thread' && view.value.id === event.thread;
  // Held even before the thread's first page arrives, so an event committed between that page and
  // this frame is not lost; after a jump into the middle, newer pages bring it instead.
  const added = log.live(event);
  noteResponses([event]);
  const visible = onScreen && document.visibilityState === 'visible';
  if (onScreen && added) logVersion.value++;
  if (visible) {
    // Read as it arrives; the cursor follows in one call per burst.
    clearTimeout(markReadTimer);
    markReadTimer = setTimeout(() => inBackground(markRead(event.thread), 'marking the thread read'), 300);
  } else if (event.from !== me.value?.participant.id && event.type !== 'system') {
    // Counted as the hub counts unread: every event from someone else except the thread's own bookkeeping.
    threads.value = threads.value.map((t) => (t.id === event.thread ? { ...t, unread: (t.unread ?? 0) + 1 } : t));
  }
  if (event.type === 'control' || event.type === 'system') {
    // Steering and thread changes: the badges in the sidebar and the panel of the open thread.
    if (onScreen) soon(`detail:${event.thread}`, () => refreshDetail(event.thread));
    soon('threads', refreshThreads);
  } else if (!threads.value.some((t) => t.id === event.thread)) {
    // A thread this page has not listed yet (a new DM, a side channel opened elsewhere).
    soon('threads', refreshThreads);
  }
  if (event.type === 'request' || event.type === 'response') soon('requests', refreshRequests);
  // My own DM or request now has recipients; an answer from one acknowledges what I sent.
  if (event.type !== 'presence') soon('sent', refreshSent);
  const myId = me.value?.participant.id;
  if (myId && event.from !== myId && (event.to === myId || event.meta?.mentions?.includes(myId) || event.type === 'control')) soon('for-you', refreshForYou);
}

export function applyPresence(info: PresenceInfo): void {
  presence.value = { ...presence.value, [info.handle]: info };
  if (!participants.value.some((p) => p.handle === info.handle)) inBackground(refreshParticipants(), 'reading the participants again');
}

export function applyMeeting(frame: MeetingFrame): void {
  const ring = meetingRing.value;
  const onScreen = view.value.kind === 'meeting' && view.value.name === frame.meeting;
  if (ring && onScreen && ring.name === frame.meeting) {
    if (frame.action === 'said' && frame.message && frame.message.number > ring.latest + 1) {
      // Lines were said between the ring we hold and this one: fetch the ring again.
      inBackground(refreshRing(frame.meeting), 'reading the meeting again');
    } else if (frame.action === 'said' && frame.message && frame.message.number > ring.latest) {
      const m = frame.message;
      if (document.visibilityState === 'visible') seeMeeting(ring.name, m.number);
      meetingRing.value = {
        ...ring,
        latest: m.number,
        messages: [...ring.messages, { number: m.number, speaker: m.speaker, content: m.content, ts: new Date(m.ts).toISOString() }],
      };
    } else if (frame.action !== 'said') {
      inBackground(refreshRing(frame.meeting), 'reading the meeting again');
    }
  }
  const said = frame.action === 'said' ? frame.message?.number : undefined;
  if (said !== undefined && meetings.value.some((m) => m.name === frame.meeting)) {
    meetings.value = meetings.value.map((m) => (m.name === frame.meeting && said > m.latest ? { ...m, latest: said } : m));
  } else {
    inBackground(refreshMeetings(), 'reading the meetings again');
  }
}
