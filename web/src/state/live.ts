/**
 * The page's one live stream (`GET /api/v1/stream`): log events, presence
 * and meeting traffic for the whole session. The browser's EventSource
 * resumes by itself with Last-Event-ID after a dropped connection; when the
 * hub refuses or is down (it closes the source), the page reconnects with
 * `?since=` the last seq it saw. Either way the hub replays what was missed,
 * and the page keeps each event once (ThreadLog is keyed by seq).
 */

import { signal } from '@preact/signals';
import { api } from '../api.js';
import type { Me, MeetingFrame, ParleyEvent, PresenceInfo } from '../types.js';
import { inBackground } from './background.js';
import { applyEvent, applyMeeting, applyPresence } from './live-events.js';
import { resync } from './refreshers.js';
import { chatEnabled, signedOut } from './view-state.js';

export type LiveState = 'connecting' | 'live' | 'reconnecting';
export const liveState = signal<LiveState>('connecting');
/** Seq of the newest event received: what a reconnect resumes after. */
export let lastSeq = 0;

let source: EventSource | undefined;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
let retryDelay = 250;
let everOpened = false;
let running = false;

/** Starts the stream after `since`: the head seq the thread list was read at, so nothing in between is missed. */
export function startLive(since: number): void {
  stopLive();
  running = true;
  everOpened = false;
  lastSeq = since;
  connect();
}

export function stopLive(): void {
  running = false;
  clearTimeout(retryTimer);
  source?.close();
  source = undefined;
}

function connect(): void {
  // Without chat the whole-session stream is refused: the person's inbox (requests, responses) with presence and meetings.
  const params = new URLSearchParams(chatEnabled.value ? {} : { inbox: 'true' });
  if (lastSeq > 0) params.set('since', String(lastSeq));
  const query = params.toString();
  const url = query ? `/api/v1/stream?${query}` : '/api/v1/stream';
  const es = new EventSource(url, { withCredentials: true });
  source = es;
  es.addEventListener('open', () => {
    retryDelay = 250;
    liveState.value = 'live';
    // Anything not carried by the log (counts, presence, meeting rings) is fetched again.
    if (everOpened) inBackground(resync(), 'reading the session again');
    everOpened = true;
  });
  es.addEventListener('event', (message) => {
    const event = JSON.parse((message as MessageEvent<string>).data) as ParleyEvent;
    if (event.seq <= lastSeq) return;
    lastSeq = event.seq;
    applyEvent(event);
  });
  es.addEventListener('presence', (message) => applyPresence(JSON.parse((message as MessageEvent<string>).data) as PresenceInfo));
  es.addEventListener('meeting', (message) => applyMeeting(JSON.parse((message as MessageEvent<string>).data) as MeetingFrame));
  es.addEventListener('error', () => {
    if (source !== es) return;
    liveState.value = 'reconnecting';
    // CONNECTING: the browser retries by itself, sending Last-Event-ID. CLOSED: the hub refused; retry here.
    if (es.readyState === EventSource.CLOSED) {
      es.close();
      retryTimer = setTimeout(() => inBackground(reconnectAfterRefusal(), 'connecting the live stream again'), retryDelay);
      retryDelay = Math.min(retryDelay * 2, 4000);
    }
  });
}

async function reconnectAfterRefusal(): Promise<void> {
  if (!running) return;
  try {
    // Still signed in? A revoked or ended sign-in goes back to the form instead of retrying forever.
    await api<Me>('GET', '/whoami');
  } catch (error) {
    if ((error as { status?: number }).status === 401) {
      stopLive();
      signedOut();
      return;
    }
  }
  // Signed out while the check was under way: stay closed.
  if (running) connect();
}
