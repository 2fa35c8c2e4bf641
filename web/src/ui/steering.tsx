import { useState } from 'preact/hooks';
import { api, seg } from '../api.js';
import { refreshDetail } from '../state/refreshers.js';
import { attempt, detail, me } from '../state/view-state.js';
import type { ThreadDetail, ThreadInfo } from '../types.js';
import { ParticipantSelect, PresenceChip, othersThanMe } from './people.js';
import { inBackground } from '../state/background.js';

/**
 * Steering a thread (its controls): pause, done, discussion mode, invited_auto and pin (kept from retention)
 * for the thread; mute, unmute and prod for each member; invite with a profile; a channel's access policy
 * (readers, writers, retention). Every control shows its state and who set it; the change lands in the
 * thread's log, so agents see it too.
 */
export function SteeringPanel({ thread }: { thread: ThreadInfo }) {
  const d = detail.value;
  if (!d || d.thread.id !== thread.id) return <aside class="steering" aria-label="Steering">Loading…</aside>;
  const c = d.controls;
  const control = (body: unknown) =>
    attempt(async () => {
      await api('POST', `/threads/${seg(thread.id)}/controls`, body);
      await refreshDetail(thread.id);
    });
  const myHandle = me.value?.participant.handle;

  return (
    <aside class="steering" aria-label="Steering">
      <h2>Steering</h2>
      <dl class="controls">
        <Control
          label="Paused"
          on={c.paused}
          by={c.pausedBy}
          hint="Nobody but humans may post while paused."
          action={c.paused ? 'Resume' : 'Pause'}
          onToggle={() => control({ pause: { on: !c.paused } })}
        />
        <Control label="Done" on={c.done} by={c.doneBy} hint="The work here is finished." action={c.done ? 'Reopen' : 'Mark done'} onToggle={() => control({ done: !c.done })} />
        <Control
          label="Discussion mode"
          on={c.discussion.on}
          by={c.discussion.on ? c.discussion.by : undefined}
          hint={c.discussion.on ? (c.discussion.allowAgentMentions ? 'Agents may mention agents.' : 'Agents answer humans only.') : 'Agents may talk among themselves.'}
          action={c.discussion.on ? 'Turn off' : 'Turn on'}
          onToggle={() => control({ discussion: { on: !c.discussion.on } })}
        />
        {c.discussion.on && (
          <label class="check">
            <input
              type="checkbox"
              checked={c.discussion.allowAgentMentions}
              onChange={(e) => inBackground(control({ discussion: { on: true, allow_agent_mentions: e.currentTarget.checked } }), 'steering the thread')}
            />
            Agents may mention agents
          </label>
        )}
        <Control
          label="Invited answer unprompted"
          on={c.invitedAuto}
          by={c.invitedAutoBy}
          hint="Invited participants may answer without being mentioned."
          action={c.invitedAuto ? 'Turn off' : 'Turn on'}
          onToggle={() => control({ invited_auto: { on: !c.invitedAuto } })}
        />
        <Control
          label="Pinned"
          on={c.pinned}
          by={c.pinnedBy}
          hint={c.pinned ? 'Retention keeps all of this thread.' : 'Retention prunes events past the limits.'}
          action={c.pinned ? 'Unpin' : 'Pin'}
          onToggle={() => control({ pin: { on: !c.pinned } })}
        />
      </dl>

      <AccessPolicy thread={thread} detail={d} onSet={(body) => control({ access: body })} />

      <h3 id="members-title">Members</h3>
      <table class="members" aria-labelledby="members-title">
        <thead>
          <tr>
            <th scope="col">Member</th>
            <th scope="col">Muted</th>
            <th scope="col">
              <span class="visually-hidden">Prod</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {d.members.map((m) => (
            <MemberRow key={m.handle} member={m} mine={m.handle === myHandle} control={control} />
          ))}
        </tbody>
      </table>
      <Invite thread={thread} members={d.members.map((m) => m.handle)} onInvite={(body) => control({ invite: body })} />
    </aside>
  );
}

/**
 * One member, once: who they are and how they are here, then their own
 * controls (mute as a switch showing who set it, prod). The human's own row
 * has none: nobody steers themselves.
 */
type Member = ThreadDetail['members'][number];

function MemberRow({ member: m, mine, control }: { member: Member; mine: boolean; control(body: unknown): Promise<unknown> }) {
  return (
    <tr data-member={m.handle}>
      <th scope="row">
        <span class="who">
          @{m.handle} <PresenceChip handle={m.handle} />
        </span>
        {m.invited && <span class="badge">invited</span>}
        {m.subscription !== 'subscribed' && <span class="badge">{m.subscription}</span>}
      </th>
      {mine ? (
        <td colSpan={2}>
          <span class="muted">you</span>
          <MutedBy member={m} />
        </td>
      ) : (
        <>
          <td>
            <input
              type="checkbox"
              role="switch"
              checked={m.hardMuted}
              aria-label={`Mute @${m.handle}`}
              onChange={() => inBackground(control(m.hardMuted ? { unmute: { targets: [m.handle] } } : { mute: { targets: [m.handle] } }), 'steering the thread')}
            />
            <MutedBy member={m} />
          </td>
          <td>
            <button type="button" class="small secondary" aria-label={`Prod @${m.handle}`} onClick={() => inBackground(control({ prod: [m.handle] }), 'steering the thread')}>
              Prod
            </button>
          </td>
        </>
      )}
    </tr>
  );
}

function MutedBy({ member }: { member: Member }) {
  if (!member.hardMuted) return null;
  return <span class="muted-by">{member.mutedBy ? `by @${member.mutedBy}` : 'muted'}</span>;
}

function Control({ label, on, by, hint, action, onToggle }: { label: string; on: boolean; by?: string | undefined; hint: string; action: string; onToggle(): void }) {
  return (
    <div class="control" data-control={label}>
      <dt>{label}</dt>
      <dd>
        <span class={`state ${on ? 'on' : 'off'}`}>{on ? 'on' : 'off'}</span>
        {on && by && <span class="by"> — set by @{by}</span>}
        <button type="button" class="small" onClick={onToggle}>
          {action}
        </button>
        <span class="hint">{hint}</span>
      </dd>
    </div>
  );
}

function Invite({ thread, members, onInvite }: { thread: ThreadInfo; members: string[]; onInvite(body: unknown): Promise<unknown> }) {
  // Members first need no invitation; an invite can still give one a role here, so they stay listed after the others.
  const others = othersThanMe();
  const candidates = [...others.filter((p) => !members.includes(p.handle)), ...others.filter((p) => members.includes(p.handle))];
  const [handle, setHandle] = useState('');
  const [role, setRole] = useState('');
  const [nickname, setNickname] = useState('');
  if (thread.kind === 'dm') return null;
  return (
    <form
      class="invite"
      onSubmit={async (e) => {
        e.preventDefault();
        const who = handle || candidates[0]?.handle;
        if (!who) return;
        const profile = { ...(role.trim() ? { roles: [role.trim()] } : {}), ...(nickname.trim() ? { nickname: nickname.trim() } : {}) };
        await onInvite({ participant_id: who, ...(Object.keys(profile).length > 0 ? { profile } : {}) });
        setRole('');
        setNickname('');
      }}
    >
      <h3>Invite</h3>
      <ParticipantSelect label="Participant" options={candidates} value={handle} onChange={setHandle} />
      <label>
        Role in this thread
        <input value={role} onInput={(e) => setRole(e.currentTarget.value)} placeholder="e.g. reviewer" />
      </label>
      <label>
        Nickname
        <input value={nickname} onInput={(e) => setNickname(e.currentTarget.value)} placeholder="optional" />
      </label>
      <button type="submit" class="small" disabled={candidates.length === 0}>
        Invite
      </button>
    </form>
  );
}

type AccessView = NonNullable<ThreadDetail['access']>;
type Selectors = AccessView['policy']['readers'];

/** A policy list as people read it: "@alice, member+" (a role admits that role and above). */
function selectorsText(list: Selectors, handles: Record<string, string>): string {
  return list.map((s) => ('key' in s ? (handles[s.key] ? `@${handles[s.key]}` : s.key) : s.access)).join(', ');
}

const words = (text: string): string[] =>
  text
    .split(',')
    .map((w) => w.trim())
    .filter((w) => w !== '');

/**
 * A channel's access policy: who reads, who writes, its admins and retention,
 * and who signed it; a small form sets readers, writers and retention (a new
 * signed version). Side channels follow their parent channel; DMs have none.
 */
function AccessPolicy({ thread, detail: d, onSet }: { thread: ThreadInfo; detail: ThreadDetail; onSet(body: unknown): Promise<unknown> }) {
  const view = d.access;
  const policy = view?.policy;
  const [readers, setReaders] = useState(policy ? selectorsText(policy.readers, view.handles) : 'observer');
  const [writers, setWriters] = useState(policy ? selectorsText(policy.writers, view.handles) : 'member');
  const [hours, setHours] = useState(String(policy?.retention_hours ?? 72));
  const [messages, setMessages] = useState(String(policy?.retention_messages ?? 10000));
  if (thread.kind === 'dm') return null;
  const summary = view && policy && (
    <dl class="access-policy">
      <dt>Readers</dt>
      <dd data-list="readers">{selectorsText(policy.readers, view.handles) || 'no one'}</dd>
      <dt>Writers</dt>
      <dd data-list="writers">{selectorsText(policy.writers, view.handles) || 'no one'}</dd>
      <dt>Admins</dt>
      <dd data-list="admins">{selectorsText(policy.admins, view.handles) || 'no one'}</dd>
      <dt>Retention</dt>
      <dd data-list="retention">
        {policy.retention_hours} h or {policy.retention_messages} messages
      </dd>
      <dt>Signed</dt>
      <dd data-list="signed">
        v{policy.version} by {view.handles[view.signer] ? `@${view.handles[view.signer]}` : view.signer}
      </dd>
    </dl>
  );
  return (
    <section class="access" aria-labelledby="access-title">
      <h3 id="access-title">Access policy</h3>
      {thread.kind === 'side' ? (
        <p class="hint">{view ? `Follows #${view.channel}'s policy.` : 'Follows its parent channel (no access policy there).'}</p>
      ) : (
        <>
          {summary ?? <p class="hint">No access policy: roles alone decide who reads and writes.</p>}
          <form
            class="access-form"
            onSubmit={async (e) => {
              e.preventDefault();
              await onSet({ readers: words(readers), writers: words(writers), retention_hours: Number(hours), retention_messages: Number(messages) });
            }}
          >
            <label>
              Readers
              <input name="readers" value={readers} onInput={(e) => setReaders(e.currentTarget.value)} placeholder="@handle, member, admin" />
            </label>
            <label>
              Writers
              <input name="writers" value={writers} onInput={(e) => setWriters(e.currentTarget.value)} placeholder="@handle, member" />
            </label>
            <label>
              Retention (hours)
              <input name="retention-hours" type="number" min={1} value={hours} onInput={(e) => setHours(e.currentTarget.value)} />
            </label>
            <label>
              Retention (messages)
              <input name="retention-messages" type="number" min={1} value={messages} onInput={(e) => setMessages(e.currentTarget.value)} />
            </label>
            <button type="submit" class="small">
              Set policy
            </button>
          </form>
        </>
      )}
    </section>
  );
}
