import { useLayoutEffect, useRef } from 'preact/hooks';
import { api, seg } from '../api.js';
import { openMeeting } from '../state/open-view.js';
import { me, meetingRing } from '../state/view-state.js';
import { Composer } from './composer.js';
import { Markdown } from './message.js';
import { Time } from './time.js';
import { inBackground } from '../state/background.js';

/**
 * A meeting room: who is here, the live ring with each message's number, and a
 * marker where the ring has dropped older messages. Nothing of a meeting is
 * stored; the ring lives in the hub's memory.
 */
export function MeetingView({ name }: { name: string }) {
  const ring = meetingRing.value;
  const list = useRef<HTMLOListElement>(null);
  const pinned = useRef(true);
  // The newest line stays in view while the person is at the bottom of the ring.
  useLayoutEffect(() => {
    const el = list.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  }, [ring?.latest, ring?.name]);
  if (!ring || ring.name !== name) return <p class="empty">Loading…</p>;
  const here = ring.who.some((w) => w.handle === me.value?.participant.handle);
  return (
    <section class="meeting" aria-labelledby="meeting-title">
      <header class="thread-head">
        <h1 id="meeting-title"># {ring.name}</h1>
        <span class="muted">meeting · not stored</span>
        <button
          type="button"
          class="small secondary"
          onClick={() => inBackground(api('POST', `/meetings/${seg(name)}/${here ? 'leave' : 'join'}`).then(() => openMeeting(name)), 'calling the hub')}
        >
          {here ? 'Leave' : 'Join'}
        </button>
      </header>
      <p class="who-here" aria-label="Who is here">
        Here:{' '}
        {ring.who.length === 0
          ? 'nobody'
          : ring.who.map((w, i) => (
              <span key={w.handle}>
                {i > 0 && ', '}@{w.handle}
                {w.role && (
                  <>
                    {' '}
                    (<bdi>{w.role}</bdi>)
                  </>
                )}
              </span>
            ))}
      </p>
      <ol
        class="ring"
        aria-label="Meeting messages"
        ref={list}
        tabIndex={0}
        onScroll={(e) => {
          const el = e.currentTarget;
          pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
        }}
      >
        {ring.dropped > 0 && (
          <li class="dropped" role="note">
            {ring.dropped} older message{ring.dropped === 1 ? '' : 's'} dropped from the ring
          </li>
        )}
        {ring.messages.map((m) => (
          <li key={m.number} data-number={m.number}>
            <span class="number">#{m.number}</span> <strong>@{m.speaker}</strong> <Time iso={m.ts} />
            <Markdown text={m.content} />
          </li>
        ))}
      </ol>
      <Composer label={`Say in ${ring.name}`} onSend={async (text) => {
        await api('POST', `/meetings/${seg(name)}/say`, { text });
      }} />
    </section>
  );
}
