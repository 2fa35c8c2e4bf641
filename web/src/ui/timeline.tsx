/**
 * A thread's timeline, virtualized: only the rows in view are rendered. It
 * stays pinned to the newest message while the person is at the bottom, pages
 * older history in when they scroll to the top (keeping their place), and
 * scrolls to a message they jumped to from search or a link.
 */

import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import type { ParleyEvent } from '../types.js';
import { inBackground } from '../state/background.js';
import { openThread } from '../state/open-view.js';
import { loadNewer, loadOlder } from '../state/thread-pages.js';
import { focusSeq, logOf, logVersion } from '../state/view-state.js';
import { EventRow, type MessageActions } from './message.js';
import { useVirtualizer } from './virtual.js';

const NEAR_EDGE_PX = 120;

export function Timeline({ thread, onReply, onSide }: { thread: string; onReply(event: ParleyEvent): void; onSide(event: ParleyEvent): void }) {
  // Reading the version subscribes this component: it re-renders when the log changes.
  const version = logVersion.value;
  const log = logOf(thread);
  const events = log.events;
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const prependAnchor = useRef<{ seq: number } | undefined>(undefined);

  const virtualizer = useVirtualizer({
    count: events.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 72,
    overscan: 8,
    getItemKey: (index) => events[index]?.seq ?? index,
  });

  const actions: MessageActions = {
    onReply,
    onSide,
    onJump: (seq) => inBackground(openThread(thread, seq), 'opening a thread'),
    findById: (id) => log.byId.get(id),
    findRequest: (requestId) =>
      events.find((e) => e.type === 'request' && (e.content as { request_id?: string }).request_id === requestId),
  };

  // New thread on screen: start at the bottom (or at the focused message).
  useEffect(() => {
    pinned.current = focusSeq.value === undefined;
  }, [thread]);

  // A jump (search hit, linked request) scrolls once to its message and moves keyboard focus there;
  // later pages and live events leave the person where they are.
  const jumped = useRef<{ thread: string; seq: number } | undefined>(undefined);
  useLayoutEffect(() => {
    const focus = focusSeq.value;
    if (focus !== undefined && (jumped.current?.seq !== focus || jumped.current.thread !== thread)) {
      const index = log.indexOfSeq(focus);
      if (index >= 0) {
        jumped.current = { thread, seq: focus };
        prependAnchor.current = undefined;
        pinned.current = false;
        virtualizer.scrollToIndex(index, { align: 'center' });
        requestAnimationFrame(() => scroller.current?.querySelector<HTMLElement>(`article[data-seq="${focus}"]`)?.focus());
        return;
      }
    }
    const anchor = prependAnchor.current;
    if (anchor) {
      // Older messages came in above: keep the one the person was reading where it was.
      prependAnchor.current = undefined;
      const index = log.indexOfSeq(anchor.seq);
      if (index >= 0) virtualizer.scrollToIndex(index, { align: 'start' });
      return;
    }
    if (pinned.current && events.length > 0) virtualizer.scrollToIndex(events.length - 1, { align: 'end' });
  }, [version, thread, focusSeq.value]);

  function onScroll() {
    const el = scroller.current;
    if (!el) return;
    pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_EDGE_PX && !log.hasNewer;
    if (el.scrollTop < NEAR_EDGE_PX && log.hasOlder && events[0]) {
      prependAnchor.current = { seq: events[0].seq };
      inBackground(loadOlder(thread), 'loading older messages');
    }
    if (el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_EDGE_PX && log.hasNewer) inBackground(loadNewer(thread), 'loading newer messages');
  }

  const items = virtualizer.getVirtualItems();
  return (
    <div class="timeline" ref={scroller} onScroll={onScroll} tabIndex={0} aria-label="Messages" data-count={events.length}>
      {!log.loaded && <p class="empty">Loading…</p>}
      {log.loaded && events.length === 0 && <p class="empty">No messages yet. Say something below.</p>}
      <div role="list" style={{ height: `${virtualizer.getTotalSize()}px`, position: 'relative' }}>
        {items.map((item) => {
          const event = events[item.index]!;
          return (
            <div
              key={item.key}
              data-index={item.index}
              role="listitem"
              ref={virtualizer.measureElement}
              style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${item.start}px)` }}
            >
              {item.index === 0 && !log.hasOlder && <p class="start">Start of the thread</p>}
              <EventRow event={event} actions={actions} focused={focusSeq.value === event.seq} />
            </div>
          );
        })}
      </div>
    </div>
  );
}
