/**
 * Reading the session from the hub into the page's signals: all of it at
 * sign-in, each part again when the live stream says it changed, and all of
 * it after the stream comes back (counts, people and requests may have
 * changed while it was down). Delivery states change without an event on the
 * stream, so they are also read again every few seconds.
 */

import { batch } from '@preact/signals';
import { api, seg } from '../api.js';
import type { LinkedHubView, MeetingRing, MeetingSummary, Me, OpenRequest, Participant, PresenceInfo, SentDelivery, SessionInfo, ThreadDetail, ThreadInfo } from '../types.js';
import { inBackground } from './background.js';
import { loadMeetingSeen, seeMeeting } from './meeting-seen.js';
import {
  attempt,
  chatEnabled,
  detail,
  forYou,
  linkedHubs,
  me,
  meetingRing,
  meetings,
  openRequests,
  participants,
  presence,
  sentDeliveries,
  sessions,
  threads,
  view,
  type ForYouItem,
} from './view-state.js';

/** How many of the latest sent deliveries the page shows states for. */
const SENT_SHOWN = 200;
/** States change without an event on the stream (an agent's hook reads its inbox), so the page re-reads them this often. */
const SENT_REFRESH_MS = 5_000;

/**
 * Loads the session; resolves with the hub's head seq as of the thread list (the live stream starts after it).
 * Without chat there is no thread list: the head is read first, from whoami, so nothing read after it is missed.
 */
export async function loadSession(): Promise<number> {
  const noThreads = async () => ({ threads: [] as ThreadInfo[], head: (await api<Me>('GET', '/whoami')).head ?? 0 });
  const [t, p, w, m, s] = await Promise.all([
    chatEnabled.value ? api<{ threads: ThreadInfo[]; head: number }>('GET', '/threads') : noThreads(),
    api<{ participants: Participant[] }>('GET', '/participants'),
    api<{ presence: PresenceInfo[] }>('GET', '/presence'),
    api<{ meetings: MeetingSummary[] }>('GET', '/meetings'),
    api<{ sessions: SessionInfo[] }>('GET', '/sessions'),
  ]);
  batch(() => {
    threads.value = t.threads;
    participants.value = p.participants;
    presence.value = Object.fromEntries(w.presence.map((x) => [x.handle, x]));
    meetings.value = m.meetings;
    sessions.value = s.sessions;
  });
  loadMeetingSeen();
  await Promise.all([refreshRequests(), refreshForYou(), refreshSent(), refreshLinkedHubs()]);
  return t.head;
}

export async function refreshThreads(): Promise<void> {
  // Without chat the hub lists no threads (CHAT_DISABLED): there are none to show.
  if (!chatEnabled.value) return;
  const t = await api<{ threads: ThreadInfo[] }>('GET', '/threads');
  const current = view.value.kind === 'thread' ? view.value.id : undefined;
  // The thread on screen is read as it arrives: its count stays at zero.
  threads.value = t.threads.map((x) => (x.id === current ? { ...x, unread: 0 } : x));
}

export async function refreshParticipants(): Promise<void> {
  participants.value = (await api<{ participants: Participant[] }>('GET', '/participants')).participants;
}

export async function refreshRequests(): Promise<void> {
  openRequests.value = await api<{ incoming: OpenRequest[]; outgoing: OpenRequest[] }>('GET', '/requests/open');
}

export async function refreshForYou(): Promise<void> {
  const [pendingItems, delivered] = await Promise.all([
    api<{ deliveries: ForYouItem[] }>('GET', '/deliveries?state=pending&limit=200'),
    api<{ deliveries: ForYouItem[] }>('GET', '/deliveries?state=unacknowledged&limit=200'),
  ]);
  forYou.value = [...pendingItems.deliveries, ...delivered.deliveries].sort((a, b) => b.event.seq - a.event.seq);
}

/** The latest delivery states of what the human sent, by event. */
export async function refreshSent(): Promise<void> {
  const { deliveries } = await api<{ deliveries: SentDelivery[] }>('GET', `/deliveries/sent?limit=${SENT_SHOWN}`);
  const byEvent: Record<string, SentDelivery[]> = {};
  for (const d of deliveries) (byEvent[d.id] ??= []).push(d);
  sentDeliveries.value = byEvent;
}

setInterval(() => {
  if (me.value && document.visibilityState === 'visible' && view.value.kind === 'thread') inBackground(refreshSent(), 'reading the delivery states of what you sent');
  // A link's state, queue and lag change without an event on the stream.
  if (me.value && document.visibilityState === 'visible' && linkedHubs.value.length > 0) inBackground(refreshLinkedHubs(), 'reading the linked hubs');
}, SENT_REFRESH_MS);

/** The hubs this one links to: their state, what waits for them, how far behind they are, what they dropped. */
export async function refreshLinkedHubs(): Promise<void> {
  linkedHubs.value = (await api<{ hubs: LinkedHubView[] }>('GET', '/linked-hubs')).hubs;
}

/** Marks items done (acknowledged): they leave the list, and the agents' delivery state says so. */
export async function acknowledge(ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await api('POST', '/inbox/ack', { ids });
  await refreshForYou();
}

export async function refreshMeetings(): Promise<void> {
  meetings.value = (await api<{ meetings: MeetingSummary[] }>('GET', '/meetings')).meetings;
}

export async function refreshDetail(thread: string): Promise<void> {
  const d = await api<ThreadDetail>('GET', `/threads/${seg(thread)}`);
  if (view.value.kind === 'thread' && view.value.id === thread) detail.value = d;
}

/** Fetches a meeting's ring and shows it if the person is still in that meeting's view. */
export async function refreshRing(name: string): Promise<void> {
  const ring = await api<MeetingRing>('GET', `/meetings/${seg(name)}/ring`);
  if (view.value.kind === 'meeting' && view.value.name === name) {
    meetingRing.value = ring;
    seeMeeting(name, ring.latest);
  }
}

/** After the stream comes back: counts, people and requests may have changed while it was down. */
export async function resync(): Promise<void> {
  await attempt(async () => {
    await Promise.all([refreshThreads(), refreshParticipants(), refreshRequests(), refreshMeetings(), refreshForYou(), refreshSent(), refreshLinkedHubs()]);
    const w = await api<{ presence: PresenceInfo[] }>('GET', '/presence');
    presence.value = Object.fromEntries(w.presence.map((x) => [x.handle, x]));
    const v = view.value;
    if (v.kind === 'thread') await refreshDetail(v.id);
    if (v.kind === 'meeting') {
      try {
        await refreshRing(v.name);
      } catch {
        // A meeting that ended while the stream was down has no ring; the meetings list read above says it is gone.
      }
    }
  });
}
