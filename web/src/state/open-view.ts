/**
 * Opening a view — a thread (at its newest message or around one), a
 * meeting, a search — and reading what is on screen: the hub's cursor of a
 * thread follows what the person has seen, only while the tab is visible.
 */

import { batch } from '@preact/signals';
import { api, seg } from '../api.js';
import type { ParleyEvent } from '../types.js';
import { inBackground } from './background.js';
import { seeMeeting } from './meeting-seen.js';
import { refreshDetail, refreshRing } from './refreshers.js';
import { loadPage } from './thread-pages.js';
import { attempt, chatEnabled, detail, focusSeq, logOf, logVersion, meetingRing, searchResults, showError, threads, view } from './view-state.js';

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

// Back to the tab: what is on screen now counts as seen.
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState !== 'visible') return;
  const v = view.value;
  if (v.kind === 'thread') inBackground(markRead(v.id), 'marking the thread read');
  if (v.kind === 'meeting' && meetingRing.value?.name === v.name) seeMeeting(v.name, meetingRing.value.latest);
});
