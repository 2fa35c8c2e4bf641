import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { inBackground } from './state/background.js';
import { liveState, startLive, stopLive } from './state/live.js';
import { openThread } from './state/open-view.js';
import { loadSession } from './state/refreshers.js';
import { attempt, chatEnabled, currentThread, maySteer, me, notice, passwordSet, sessions, signedOut, threads, view, waiting } from './state/view-state.js';
import { effect } from '@preact/signals';
import { followViewInAddress, openFromHash } from './state/route.js';
import type { Me } from './types.js';
import { ForYouView } from './ui/for-you.js';
import { Login } from './ui/login.js';
import { MeetingView } from './ui/meeting.js';
import { RequestsView } from './ui/requests.js';
import { SearchView } from './ui/search.js';
import { Sidebar } from './ui/sidebar.js';
import { ThreadView } from './ui/thread.js';

// The tab says how much is waiting, so the person sees it from another tab.
effect(() => {
  document.title = waiting.value > 0 ? `(${waiting.value}) Parley` : 'Parley';
});

/** The page: sign in, then the session — sidebar, the open view, and the live stream behind them. */
export function App() {
  useEffect(() => {
    // The public login route says whether this browser is signed in, so a page that is not asks whoami nothing
    // (its 401 would be an error in the console). Not signed in, or the hub unreachable: the sign-in form says what happens next.
    api<{ passwordSet: boolean; signedIn?: boolean }>('GET', '/login')
      .then((r) => {
        passwordSet.value = r.passwordSet;
        return r.signedIn ? api<Me>('GET', '/whoami') : null;
      })
      .then((who) => (who ? inBackground(signedIn(who), 'opening the session') : (me.value = null)))
      .catch(() => (me.value = null));
  }, []);

  if (me.value === undefined) return <p class="loading">Connecting to the hub…</p>;
  if (me.value === null) return <Login passwordSet={passwordSet.value} onSignedIn={(who) => inBackground(signedIn(who), 'opening the session')} />;
  return <Shell />;
}

async function signedIn(who: Me): Promise<void> {
  // Sign-in answers without the hub's settings; whoami carries them.
  me.value = who.hub ? who : await api<Me>('GET', '/whoami');
  followViewInAddress();
  let head = 0;
  await attempt(async () => {
    head = await loadSession();
  });
  // The stream starts after the head seq the thread list was read at: nothing in between is missed.
  startLive(head);
  await attempt(async () => {
    if (await openFromHash(location.hash)) return;
    const first = threads.value.find((t) => t.kind === 'channel' && t.name === 'general') ?? threads.value.find((t) => t.kind === 'channel');
    if (view.value.kind === 'home' && first && chatEnabled.value) await openThread(first.id);
  });
}

function Shell() {
  const [menuOpen, setMenuOpen] = useState(false);
  // Steering is opened when wanted (the Steering button), so the conversation has the room first.
  const [steering, setSteering] = useState(false);
  const who = me.value!;
  const v = view.value;
  const thread = currentThread.value;

  return (
    <div class={`shell${menuOpen ? ' menu-open' : ''}`}>
      <button type="button" class="skip" onClick={() => document.getElementById('main')?.focus()}>
        Skip to the conversation
      </button>
      <header class="bar">
        <button type="button" class="menu secondary small" aria-expanded={menuOpen} aria-controls="sidebar" onClick={() => setMenuOpen(!menuOpen)}>
          ☰<span class="visually-hidden"> Conversations</span>
        </button>
        <strong class="brand">Parley</strong>
        <SessionPicker current={who.session.name} />
        <span class={`live live-${liveState.value}`} role="status" data-live={liveState.value}>
          {liveState.value === 'live' ? 'live' : liveState.value === 'connecting' ? 'connecting…' : 'reconnecting…'}
        </span>
        <span class="who">
          @{who.participant.handle} <span class="muted">({who.participant.profile.kind})</span>
          {who.access !== undefined && (
            <span class="access" data-access={who.access ?? 'none'} title="Your access: what this hub lets you do">
              {who.access ?? 'not in roster'}
            </span>
          )}
        </span>
        <button
          type="button"
          class="secondary small"
          onClick={() => {
            stopLive();
            inBackground(api('POST', '/logout').finally(signedOut), 'signing out on the hub');
          }}
        >
          Sign out
        </button>
      </header>
      {!chatEnabled.value && (
        <div class="notice info chat-off" role="status">
          <span>
            <strong>Chat disabled by configuration.</strong> Channels, direct messages and search are off on this hub; requests, meetings and who is here
            still work.
          </span>
        </div>
      )}
      {who.trust?.mode === 'local' && (
        <div class="notice info trust-local" role="status">
          <span>
            <strong>Local mode (no roster).</strong> Humans are {who.trust.localAccess.human}s and agents {who.trust.localAccess.agent}s unless the config or an admin says
            otherwise; only admins steer.
          </span>
        </div>
      )}
      {who.trust?.mode === 'roster' && (
        <div class="notice info trust-roster" role="status">
          <span>
            <strong>
              Roster {who.trust.org} v{who.trust.version}
            </strong>
            {who.trust.members === undefined ? '' : ` (${who.trust.members} member${who.trust.members === 1 ? '' : 's'})`}: access comes from the signed roster; you are{' '}
            {who.access ?? 'not in it'}.
          </span>
        </div>
      )}
      {notice.value && (
        <div class={`notice ${notice.value.kind}`} role="alert">
          <span>{notice.value.text}</span>
          <button type="button" class="link" onClick={() => (notice.value = undefined)} aria-label="Dismiss">
            ✕
          </button>
        </div>
      )}
      <div class="body">
        <div id="sidebar" class="sidebar-wrap">
          <Sidebar onNavigate={() => setMenuOpen(false)} />
        </div>
        <main id="main" tabIndex={-1}>
          {v.kind === 'thread' && !chatEnabled.value && <p class="disabled-reason">Chat disabled by configuration</p>}
          {v.kind === 'thread' && chatEnabled.value && thread && (
            <ThreadView key={thread.id} thread={thread} steering={steering && maySteer.value} onToggleSteering={() => setSteering(!steering)} />
          )}
          {v.kind === 'requests' && <RequestsView />}
          {v.kind === 'for-you' && <ForYouView />}
          {v.kind === 'meeting' && <MeetingView name={v.name} />}
          {v.kind === 'search' && <SearchView query={v.query} />}
          {v.kind === 'home' && (
            <div class="home">
              {chatEnabled.value ? (
                <p class="muted">Pick a channel or a direct message on the left, or create a channel with “+”.</p>
              ) : (
                <p class="disabled-reason">Chat disabled by configuration</p>
              )}
            </div>
          )}
        </main>
      </div>
    </div>
  );
}

/** The picker's choice that asks for a session by name: sessions not joined yet are not listed (they are others'). */
const ANOTHER_SESSION = '';

function SessionPicker({ current }: { current: string }) {
  const [naming, setNaming] = useState(false);
  const [name, setName] = useState('');
  const move = async (session: string) => {
    if (session === current) return;
    const moved = await attempt(() => api<Me>('POST', '/login/session', { session }));
    if (moved) {
      stopLive();
      // A different session: nothing held of the old one is valid (nor the thread in the address); start afresh.
      history.replaceState(null, '', location.pathname);
      location.reload();
    }
  };
  return (
    <div class="session-picker">
      <select
        aria-label="Session"
        value={naming ? ANOTHER_SESSION : current}
        onChange={async (e) => {
          const session = e.currentTarget.value;
          setNaming(session === ANOTHER_SESSION);
          if (session !== ANOTHER_SESSION) await move(session);
        }}
      >
        {sessions.value.length === 0 && <option value={current}>{current}</option>}
        {sessions.value.map((s) => (
          <option key={s.id} value={s.name}>
            {s.name} ({s.participants})
          </option>
        ))}
        <option value={ANOTHER_SESSION}>Another session…</option>
      </select>
      {naming && (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            if (name.trim()) await move(name.trim());
          }}
        >
          <input aria-label="Session name" value={name} onInput={(e) => setName(e.currentTarget.value)} required />
          <button type="submit">Go</button>
        </form>
      )}
    </div>
  );
}
