import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { inBackground } from '../state/background.js';
import { openMeeting, openThread, runSearch } from '../state/open-view.js';
import { refreshThreads } from '../state/refreshers.js';
import { attempt, chatEnabled, forYou, linkedHubs, me, meetings, meetingUnread, openRequests, participants, threads, view } from '../state/view-state.js';
import type { ThreadInfo } from '../types.js';
import { Dialog, DialogButtons } from './dialog.js';
import { LinkedHub } from './linked-hubs.js';
import { HubBadge, ParticipantSelect, PresenceChip, othersThanMe } from './people.js';

/**
 * The session at a glance: search, channels with their side channels nested
 * under them, direct messages, meetings, requests and who is here, each
 * thread with its unread count.
 */
export function Sidebar({ onNavigate }: { onNavigate(): void }) {
  const [query, setQuery] = useState('');
  const [creating, setCreating] = useState<'channel' | 'dm' | undefined>();
  const all = threads.value;
  const channels = all.filter((t) => t.kind === 'channel');
  const dms = all.filter((t) => t.kind === 'dm');
  const sidesOf = (parent: string) => all.filter((t) => t.kind === 'side' && t.parent === parent);
  const orphanSides = all.filter((t) => t.kind === 'side' && !all.some((p) => p.id === t.parent));
  const incoming = openRequests.value.incoming.length;
  const go = (action: () => void) => () => {
    action();
    onNavigate();
  };

  return (
    <nav class="sidebar" aria-label="Conversations">
      {/* Search reads chat: without chat there is nothing to search. */}
      {chatEnabled.value && (
        <form
          class="search"
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            if (query.trim()) go(() => inBackground(runSearch(query.trim()), 'searching'))();
          }}
        >
          <input type="search" placeholder="Search the session" aria-label="Search the session" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
        </form>
      )}

      {chatEnabled.value ? (
        <>
          <Section title="Channels" onAdd={() => setCreating('channel')} addLabel="New channel">
            {channels.map((t) => (
              <li key={t.id}>
                <ThreadLink thread={t} onOpen={go(() => inBackground(openThread(t.id), 'opening a thread'))} />
                {sidesOf(t.id).length > 0 && (
                  <ul class="nested">
                    {sidesOf(t.id).map((s) => (
                      <li key={s.id}>
                        <ThreadLink thread={s} onOpen={go(() => inBackground(openThread(s.id), 'opening a thread'))} />
                      </li>
                    ))}
                  </ul>
                )}
              </li>
            ))}
            {orphanSides.map((s) => (
              <li key={s.id}>
                <ThreadLink thread={s} onOpen={go(() => inBackground(openThread(s.id), 'opening a thread'))} />
              </li>
            ))}
          </Section>
          <Section title="Direct messages" onAdd={() => setCreating('dm')} addLabel="New direct message">
            {dms.map((t) => (
              <li key={t.id}>
                <ThreadLink thread={t} label={dmLabel(t)} onOpen={go(() => inBackground(openThread(t.id), 'opening a thread'))} />
              </li>
            ))}
          </Section>
        </>
      ) : (
        <p class="disabled-reason">Chat disabled by configuration</p>
      )}

      <Section title="Meetings">
        {meetings.value.length === 0 && <li class="muted small">None yet</li>}
        {meetings.value.map((m) => (
          <li key={m.id}>
            <button type="button" class={itemClass(view.value.kind === 'meeting' && view.value.name === m.name)} onClick={go(() => inBackground(openMeeting(m.name), 'opening a meeting'))}>
              <span class="name"># {m.name}</span>
              <span class="count" title="Members in the room">
                {m.active} here
              </span>
              {meetingUnread(m) > 0 && (
                <span class="unread" aria-label={`${meetingUnread(m)} unread`}>
                  {meetingUnread(m) >= 1000 ? '999+' : meetingUnread(m)}
                </span>
              )}
            </button>
          </li>
        ))}
      </Section>

      <Section title="Inbox">
        <li>
          <button type="button" class={itemClass(view.value.kind === 'for-you')} onClick={go(() => (view.value = { kind: 'for-you' }))}>
            <span class="name">For you</span>
            {forYou.value.length > 0 && (
              <span class="unread" aria-label={`${forYou.value.length} for you`}>
                {forYou.value.length}
              </span>
            )}
          </button>
        </li>
        <li>
          <button type="button" class={itemClass(view.value.kind === 'requests')} onClick={go(() => (view.value = { kind: 'requests' }))}>
            <span class="name">Open requests</span>
            {incoming > 0 && (
              <span class="unread" aria-label={`${incoming} waiting for you`}>
                {incoming}
              </span>
            )}
          </button>
        </li>
      </Section>

      <Section title="People">
        {participants.value.map((p) => (
          <li key={p.id} class="person">
            <span title={[p.profile.kind, p.profile.client, p.profile.model].filter(Boolean).join(' · ')}>@{p.handle}</span>
            {p.hub && <HubBadge hub={p.hub} />}
            <PresenceChip handle={p.handle} />
          </li>
        ))}
      </Section>

      {linkedHubs.value.length > 0 && (
        <Section title="Linked hubs">
          {linkedHubs.value.map((hub) => (
            <LinkedHub key={hub.key} hub={hub} />
          ))}
        </Section>
      )}

      <NewChannel open={creating === 'channel'} onClose={() => setCreating(undefined)} />
      <NewDm open={creating === 'dm'} onClose={() => setCreating(undefined)} />
    </nav>
  );
}

function Section({ title, children, onAdd, addLabel }: { title: string; children: preact.ComponentChildren; onAdd?: () => void; addLabel?: string }) {
  return (
    <section>
      <h2>
        {title}
        {onAdd && (
          <button type="button" class="add" onClick={onAdd} aria-label={addLabel} title={addLabel}>
            +
          </button>
        )}
      </h2>
      <ul>{children}</ul>
    </section>
  );
}

function itemClass(active: boolean): string {
  return `item${active ? ' active' : ''}`;
}

function ThreadLink({ thread, label, onOpen }: { thread: ThreadInfo; label?: string; onOpen(): void }) {
  const active = view.value.kind === 'thread' && view.value.id === thread.id;
  const unread = thread.unread ?? 0;
  const prefix = thread.kind === 'side' ? '↳ ' : thread.kind === 'channel' ? '# ' : '';
  return (
    <button type="button" class={itemClass(active)} onClick={onOpen} aria-current={active ? 'page' : undefined} data-thread={thread.id}>
      <span class="name">
        {prefix}
        <bdi>{label ?? thread.name}</bdi>
      </span>
      {thread.paused && <span class="badge">paused</span>}
      {thread.closed && <span class="badge">closed</span>}
      {thread.done && <span class="badge">done</span>}
      {unread > 0 && (
        <span class="unread" aria-label={`${unread} unread`}>
          {unread >= 1000 ? '999+' : unread}
        </span>
      )}
    </button>
  );
}

export function dmLabel(thread: ThreadInfo): string {
  // The hub names a DM's other participant for the viewer; a DM's name lists both handles.
  if (thread.with) return `@${thread.with}`;
  const mine = me.value?.participant.handle ?? '';
  const other = thread.name
    .replace(/^dm:/, '')
    .split(',')
    .filter((h) => h && h !== mine);
  return other.length > 0 ? `@${other.join(', @')}` : thread.name;
}

function NewChannel({ open, onClose }: { open: boolean; onClose(): void }) {
  const [name, setName] = useState('');
  return (
    <Dialog title="New channel" open={open} onClose={onClose}>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const created = await attempt(() => api<ThreadInfo>('POST', '/threads', { name }));
          if (created) {
            await refreshThreads();
            setName('');
            onClose();
            inBackground(openThread(created.id), 'opening the new thread');
          }
        }}
      >
        <label>
          Name
          <input value={name} onInput={(e) => setName(e.currentTarget.value)} required autoFocus placeholder="e.g. backend" />
        </label>
        <DialogButtons submit="Create" onCancel={onClose} />
      </form>
    </Dialog>
  );
}

function NewDm({ open, onClose }: { open: boolean; onClose(): void }) {
  const others = othersThanMe();
  const [to, setTo] = useState('');
  const [text, setText] = useState('');
  return (
    <Dialog title="New direct message" open={open} onClose={onClose}>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const sent = await attempt(() => api<{ thread: string }>('POST', '/dm', { to: to || others[0]?.handle, text }));
          if (sent) {
            await refreshThreads();
            setText('');
            onClose();
            inBackground(openThread(sent.thread), 'opening the direct message');
          }
        }}
      >
        <ParticipantSelect label="To" options={others} value={to} onChange={setTo} />
        <label>
          Message
          <textarea value={text} onInput={(e) => setText(e.currentTarget.value)} required rows={3} />
        </label>
        <DialogButtons submit="Send" onCancel={onClose} />
      </form>
    </Dialog>
  );
}
