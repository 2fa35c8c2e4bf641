import { batch, computed, signal } from '@preact/signals';
import { api, describe, seg } from '../api.js';
import type {
  MeetingFrame,
  MeetingRing,
  MeetingSummary,
  Me,
  OpenRequest,
  ParleyEvent,
  Participant,
  PresenceInfo,
  RequestStatus,
  SentDelivery,
  SessionInfo,
  ThreadDetail,
  ThreadInfo,
} from '../types.js';
import { ThreadLog } from './thread-log.js';

/**
 * Everything the page shows, as signals, and the actions that change it.
 * Components read signals and call actions; only this module and the live
 * stream (live.ts) talk to the hub.
 */
export type View =
  | { kind: 'home' }
  | { kind: 'for-you' }
  | { kind: 'thread'; id: string }
  | { kind: 'requests' }
  | { kind: 'meeting'; name: string }
  | { kind: 'search'; query: string };

export const me = signal<Me | null | undefined>(undefined);
export const passwordSet = signal(true);
export const sessions = signal<SessionInfo[]>([]);
export const threads = signal<ThreadInfo[]>([]);
export const participants = signal<Participant[]>([]);
export const presence = signal<Record<string, PresenceInfo>>({});
export const meetings = signal<MeetingSummary[]>([]);
export const openRequests = signal<{ incoming: OpenRequest[]; outgoing: OpenRequest[] }>({ incoming: [], outgoing: [] });
/** What was addressed to the human (mentions, DMs, requests, prods) and not yet marked done, newest first. */
export interface ForYouItem {
  reason: string;
  state: 'pending' | 'delivered';
  event: ParleyEvent;
}
export const forYou = signal<ForYouItem[]>([]);
/** The latest status of each request seen in the log (response events), by request id. */
export const requestStatus = signal<Record<string, RequestStatus>>({});
/** Per sent event id, what became of it for each recipient: delivered, in their agent's context, acknowledged. */
export const sentDeliveries = signal<Record<string, SentDelivery[]>>({});
export const view = signal<View>({ kind: 'home' });
export const detail = signal<ThreadDetail | undefined>(undefined);
export const meetingRing = signal<MeetingRing | undefined>(undefined);
export const searchResults = signal<ParleyEvent[] | undefined>(undefined);
/** The message to scroll to and highlight (a search hit, a linked request). */
export const focusSeq = signal<number | undefined>(undefined);
export const notice = signal<{ kind: 'error' | 'info'; text: string } | undefined>(undefined);
/** Bumped whenever the current thread's log changes; the timeline re-renders on it. */
export const logVersion = signal(0);
export const chatEnabled = computed(() => me.value?.hub?.chat !== false);
/** Whether the caller may steer (an admin's; a hub before roles does not say, and refuses what it must). */
export const maySteer = computed(() => me.value?.access === undefined || me.value.access === 'admin');
/** The newest meeting message number the person has seen, by meeting (meetings keep no cursor in the hub). */
export const meetingSeen = signal<Record<string, number>>({});
const seenKey = () => `parley.meetingSeen.${me.value?.session.id ?? ''}.${me.value?.participant.handle ?? ''}`;

/** Meetings keep no cursor in the hub, so the page remembers what this person has seen in this browser. */
export function loadMeetingSeen(): void {
  try {
    meetingSeen.value = JSON.parse(localStorage.getItem(seenKey()) ?? '{}') as Record<string, number>;
  } catch {
    meetingSeen.value = {};
  }
}
export const meetingUnread = (m: MeetingSummary): number => Math.max(0, m.latest - (meetingSeen.value[m.name] ?? 0));
/** Everything waiting for the person: unread messages in threads, meeting lines and requests to answer (the tab title shows it). */
export const waiting = computed(
  () =>
    threads.value.reduce((sum, t) => sum + (t.unread ?? 0), 0) +
    meetings.value.reduce((sum, m) => sum + meetingUnread(m), 0) +
    forYou.value.length,
);

const logs = new Map<string, ThreadLog>();
const HISTORY_PAGE = 100;

export function logOf(thread: string): ThreadLog {
  let log = logs.get(thread);
  if (!log) {
    log = new ThreadLog();
    logs.set(thread, log);
  }
  return log;
}

export const currentThread = computed(() => {
  const v = view.value;
  return v.kind === 'thread' ? threads.value.find((t) => t.id === v.id) : undefined;
});

export function participantByHandle(handle: string): Participant | undefined {
  return participants.value.find((p) => p.handle === handle);
}

export function showError(error: unknown): void {
  notice.value = { kind: 'error', text: describe(error) };
}

/** Runs an action, reporting a refusal to the person instead of throwing. */
export async function attempt<T>(action: () => Promise<T>): Promise<T | undefined> {
  try {
    return await action();
  } catch (error) {
    showError(error);
    return undefined;
  }
}

// Loading ---------------------------------------------------------------

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
  await Promise.all([refreshRequests(), refreshForYou(), refreshSent()]);
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

/** How many of the latest sent deliveries the page shows states for. */
const SENT_SHOWN = 200;
/** States change without an event on the stream (an agent's hook reads its inbox), so the page re-reads them this often. */
const SENT_REFRESH_MS = 5_000;
setInterval(() => {
  if (me.value && document.visibilityState === 'visible' && view.value.kind === 'thread') void refreshSent().catch(() => undefined);
}, SENT_REFRESH_MS);

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

function noteResponses(events: readonly ParleyEvent[]): void {
  let changed: Record<string, RequestStatus> | undefined;
  for (const e of events) {
    if (e.type !== 'response') continue;
    const content = e.content as { request_id: string; status: RequestStatus };
    changed ??= { ...requestStatus.value };
    changed[content.request_id] = content.status;
  }
  if (changed) requestStatus.value = changed;
}

/** One page of a thread's history merged into its log; says how many events were new and whether more lie beyond. */
async function historyPage(thread: string, query: string): Promise<{ added: number; more: boolean }> {
  const page = await api<{ events: ParleyEvent[]; more: boolean }>('GET', `/threads/${seg(thread)}/history?${query}`);
  noteResponses(page.events);
  return { added: logOf(thread).merge(page.events), more: page.more };
}

/** Loads the newest page of a thread, or the page around `seq` for a jump. */
async function loadPage(thread: string, around?: number): Promise<void> {
  const log = logOf(thread);
  if (around === undefined) {
    log.hasOlder = (await historyPage(thread, `limit=${HISTORY_PAGE}`)).more;
    log.reachedNewest();
  } else {
    const [before, after] = await Promise.all([
      historyPage(thread, `before=${around + 1}&limit=${HISTORY_PAGE / 2}`),
      historyPage(thread, `after=${around}&limit=${HISTORY_PAGE / 2}`),
    ]);
    log.hasOlder = before.more;
    if (!after.more) log.reachedNewest();
  }
  log.loaded = true;
  logVersion.value++;
}

let loadingOlder = false;
/** Pages further back when the person scrolls to the top of what is held. */
export async function loadOlder(thread: string): Promise<number> {
  const log = logOf(thread);
  if (loadingOlder || !log.hasOlder || log.oldestSeq === undefined) return 0;
  loadingOlder = true;
  try {
    const page = await historyPage(thread, `before=${log.oldestSeq}&limit=${HISTORY_PAGE}`);
    log.hasOlder = page.more;
    logVersion.value++;
    return page.added;
  } finally {
    loadingOlder = false;
  }
}

/** Pages forward after a jump into the middle of a long thread. */
export async function loadNewer(thread: string): Promise<void> {
  const log = logOf(thread);
  if (!log.hasNewer || log.newestSeq === undefined) return;
  if (!(await historyPage(thread, `after=${log.newestSeq}&limit=${HISTORY_PAGE}`)).more) log.reachedNewest();
  logVersion.value++;
}

export async function openThread(id: string, seq?: number): Promise<void> {
  batch(() => {
    view.value = { kind: 'thread', id };
    detail.value = undefined;
    focusSeq.value = seq;
  });
  // Without chat the view says so (an old link to a thread, say): nothing to fetch.
  if (!chatEnabled.value) return;
  const log = logOf(id);
  try {
    if (seq !== undefined && !log.has(seq)) {
      // A jump far from what is held: start afresh around the message. Live events wait
      // (hasNewer) until the pages between the jump and the newest are loaded.
      log.clear();
      log.hasNewer = true;
      await loadPage(id, seq);
    } else if (!log.loaded || (seq === undefined && log.hasNewer)) {
      // Not loaded yet, or left in the middle after a jump: show the newest.
      if (log.hasNewer) log.clear();
      await loadPage(id);
    } else {
      logVersion.value++;
    }
    if (view.value.kind !== 'thread' || view.value.id !== id) return;
    await Promise.all([refreshDetail(id), markRead(id)]);
  } catch (error) {
    showError(error);
  }
}

/** The page has shown the thread up to its newest event: the hub's cursor follows, and its count clears. */
export async function markRead(thread: string): Promise<void> {
  // Only what the person can see counts as read: not while the tab is in the background.
  if (document.visibilityState !== 'visible' || view.value.kind !== 'thread' || view.value.id !== thread) return;
  const newest = logOf(thread).newestSeq;
  threads.value = threads.value.map((t) => (t.id === thread && t.unread ? { ...t, unread: 0 } : t));
  if (newest !== undefined) await api('POST', `/threads/${seg(thread)}/read`, { up_to: newest });
}

export async function openMeeting(name: string): Promise<void> {
  batch(() => {
    view.value = { kind: 'meeting', name };
    meetingRing.value = undefined;
  });
  await attempt(() => refreshRing(name));
}

export async function runSearch(query: string): Promise<void> {
  batch(() => {
    view.value = { kind: 'search', query };
    searchResults.value = undefined;
  });
  await attempt(async () => {
    const found = await api<{ events: ParleyEvent[] }>('GET', `/search?q=${encodeURIComponent(query)}&limit=100`);
    if (view.value.kind === 'search' && view.value.query === query) searchResults.value = found.events;
  });
}

// Live ------------------------------------------------------------------

let markReadTimer: ReturnType<typeof setTimeout> | undefined;

/** Runs a refresh once for a burst of events (a replay after reconnecting can bring hundreds). */
const pending = new Map<string, ReturnType<typeof setTimeout>>();
function soon(key: string, refresh: () => Promise<void>): void {
  if (pending.has(key)) return;
  pending.set(
    key,
    setTimeout(() => {
      pending.delete(key);
      void refresh().catch(() => undefined);
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
    markReadTimer = setTimeout(() => void markRead(event.thread).catch(() => undefined), 300);
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
  if (!participants.value.some((p) => p.handle === info.handle)) void refreshParticipants().catch(() => undefined);
}

function seeMeeting(name: string, latest: number): void {
  if ((meetingSeen.value[name] ?? 0) >= latest) return;
  meetingSeen.value = { ...meetingSeen.value, [name]: latest };
  try {
    localStorage.setItem(seenKey(), JSON.stringify(meetingSeen.value));
  } catch {
    // Storage full or off: counts reset with the page, nothing else is lost.
  }
}

export function applyMeeting(frame: MeetingFrame): void {
  const ring = meetingRing.value;
  const onScreen = view.value.kind === 'meeting' && view.value.name === frame.meeting;
  if (ring && onScreen && ring.name === frame.meeting) {
    if (frame.action === 'said' && frame.message && frame.message.number > ring.latest + 1) {
      // Lines were said between the ring we hold and this one: fetch the ring again.
      void refreshRing(frame.meeting).catch(() => undefined);
    } else if (frame.action === 'said' && frame.message && frame.message.number > ring.latest) {
      const m = frame.message;
      if (document.visibilityState === 'visible') seeMeeting(ring.name, m.number);
      meetingRing.value = {
        ...ring,
        latest: m.number,
        messages: [...ring.messages, { number: m.number, speaker: m.speaker, content: m.content, ts: new Date(m.ts).toISOString() }],
      };
    } else if (frame.action !== 'said') {
      void refreshRing(frame.meeting).catch(() => undefined);
    }
  }
  const said = frame.action === 'said' ? frame.message?.number : undefined;
  if (said !== undefined && meetings.value.some((m) => m.name === frame.meeting)) {
    meetings.value = meetings.value.map((m) => (m.name === frame.meeting && said > m.latest ? { ...m, latest: said } : m));
  } else {
    void refreshMeetings().catch(() => undefined);
  }
}

/** Fetches a meeting's ring and shows it if the person is still in that meeting's view. */
async function refreshRing(name: string): Promise<void> {
  const ring = await api<MeetingRing>('GET', `/meetings/${seg(name)}/ring`);
  if (view.value.kind === 'meeting' && view.value.name === name) {
    meetingRing.value = ring;
    seeMeeting(name, ring.latest);
  }
}

/** After the stream comes back: counts, people and requests may have changed while it was down. */
export async function resync(): Promise<void> {
  await attempt(async () => {
    await Promise.all([refreshThreads(), refreshParticipants(), refreshRequests(), refreshMeetings(), refreshForYou(), refreshSent()]);
    const w = await api<{ presence: PresenceInfo[] }>('GET', '/presence');
    presence.value = Object.fromEntries(w.presence.map((x) => [x.handle, x]));
    const v = view.value;
    if (v.kind === 'thread') await refreshDetail(v.id);
    if (v.kind === 'meeting') await refreshRing(v.name).catch(() => undefined);
  });
}

// Back to the tab: what is on screen now counts as seen.
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState !== 'visible') return;
  const v = view.value;
  if (v.kind === 'thread') void markRead(v.id).catch(() => undefined);
  if (v.kind === 'meeting' && meetingRing.value?.name === v.name) seeMeeting(v.name, meetingRing.value.latest);
});

export function signedOut(): void {
  logs.clear();
  history.replaceState(null, '', location.pathname);
  batch(() => {
    me.value = null;
    threads.value = [];
    view.value = { kind: 'home' };
    detail.value = undefined;
  });
}
