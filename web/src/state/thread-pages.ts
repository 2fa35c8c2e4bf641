/**
 * A thread's history, a page at a time, merged into its log: the newest page
 * when a thread opens, the pages around a message the person jumps to, older
 * pages as they scroll up and newer ones after a jump. The live stream adds
 * the rest (live-events.ts).
 */

import { api, seg } from '../api.js';
import type { ParleyEvent } from '../types.js';
import { logOf, logVersion, noteResponses } from './view-state.js';

const HISTORY_PAGE = 100;

/** One page of a thread's history merged into its log; says how many events were new and whether more lie beyond. */
async function historyPage(thread: string, query: string): Promise<{ added: number; more: boolean }> {
  const page = await api<{ events: ParleyEvent[]; more: boolean }>('GET', `/threads/${seg(thread)}/history?${query}`);
  noteResponses(page.events);
  return { added: logOf(thread).merge(page.events), more: page.more };
}

/** Loads the newest page of a thread, or the page around `seq` for a jump. */
export async function loadPage(thread: string, around?: number): Promise<void> {
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
