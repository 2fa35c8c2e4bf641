/**
 * Everything the page shows, as signals: the session, its threads, people,
 * meetings and requests, what is addressed to the person, and the view that
 * is open. Components read these; the other modules of web/src/state read
 * the hub into them. A thread's events are held per thread in a ThreadLog.
 */

import { batch, computed, signal } from '@preact/signals';
import { describe } from '../api.js';
import type {
  LinkedHubView,
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

/** The view that is open (the address follows it: see route.ts). */
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
/** The hubs this one links to (empty without peer links). */
export const linkedHubs = signal<LinkedHubView[]>([]);
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
/** The newest meeting message number the person has seen, by meeting (meetings keep no cursor in the hub: see meeting-seen.ts). */
export const meetingSeen = signal<Record<string, number>>({});
export const meetingUnread = (m: MeetingSummary): number => Math.max(0, m.latest - (meetingSeen.value[m.name] ?? 0));
/** Everything waiting for the person: unread messages in threads, meeting lines and requests to answer (the tab title shows it). */
export const waiting = computed(
  () =>
    threads.value.reduce((sum, t) => sum + (t.unread ?? 0), 0) +
    meetings.value.reduce((sum, m) => sum + meetingUnread(m), 0) +
    forYou.value.length,
);

const logs = new Map<string, ThreadLog>();

/** The events held of a thread (made empty at first use). */
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

/** Notes the status of the requests these events answer. */
export function noteResponses(events: readonly ParleyEvent[]): void {
  let changed: Record<string, RequestStatus> | undefined;
  for (const e of events) {
    if (e.type !== 'response') continue;
    const content = e.content as { request_id: string; status: RequestStatus };
    changed ??= { ...requestStatus.value };
    changed[content.request_id] = content.status;
  }
  if (changed) requestStatus.value = changed;
}

/** Forgets the session: back to the sign-in form, with nothing of it held. */
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
