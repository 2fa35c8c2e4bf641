/**
 * The human's inbox: everything addressed to them — mentions, direct
 * messages, requests, prods — until they mark it done. Done is the hub's
 * acknowledgement, so an agent that asked can see it was taken in.
 */

import { useEffect } from 'preact/hooks';
import { inBackground } from '../state/background.js';
import { openThread } from '../state/open-view.js';
import { acknowledge, refreshForYou } from '../state/refreshers.js';
import { attempt, chatEnabled, forYou, threads, view } from '../state/view-state.js';
import { summaryOf } from './message.js';
import { AuthorChip } from './people.js';
import { dmLabel } from './sidebar.js';
import { Time } from './time.js';

const REASONS: Record<string, string> = { mention: 'mention', dm: 'direct message', direct: 'addressed to you', request: 'request', response: 'response', prod: 'prod', control: 'steering', invite: 'invite' };

export function ForYouView() {
  // Read again when opened, as the requests are: the live stream may have been down.
  useEffect(() => inBackground(refreshForYou(), 'reading what is addressed to you'), []);
  const items = forYou.value;
  return (
    <section class="for-you" aria-labelledby="for-you-title">
      <header class="section-head">
        <h1 id="for-you-title">For you</h1>
        {items.length > 0 && (
          <button type="button" class="small secondary" onClick={() => inBackground(attempt(() => acknowledge(items.map((i) => i.event.id))), 'acknowledging')}>
            Mark all done
          </button>
        )}
      </header>
      {items.length === 0 && <p class="muted">Nothing is addressed to you. Mentions, direct messages and requests land here.</p>}
      <ul>
        {items.map(({ reason, event }) => {
          const thread = threads.value.find((t) => t.id === event.thread);
          const where = thread ? thread.kind === 'dm' ? `a direct message with ${dmLabel(thread)}` : <># <bdi>{thread.name}</bdi></> : 'a thread';
          return (
            <li key={event.seq} class="for-you-item" data-seq={event.seq}>
              <p>
                <span class="badge">{REASONS[reason] ?? reason}</span> <AuthorChip handle={event.author} /> in {where} <Time iso={event.ts} />
              </p>
              <p class="snippet" dir="auto">
                {summaryOf(event).slice(0, 240)}
              </p>
              <div class="buttons-inline">
                {/* Without chat only requests and responses land here: they are shown in the requests view. */}
                <button
                  type="button"
                  class="small secondary"
                  onClick={() => {
                    if (chatEnabled.value) inBackground(openThread(event.thread, event.seq), 'opening the thread');
                    else view.value = { kind: 'requests' };
                  }}
                >
                  Open
                </button>
                <button type="button" class="small" onClick={() => inBackground(attempt(() => acknowledge([event.id])), 'acknowledging')}>
                  Done
                </button>
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
