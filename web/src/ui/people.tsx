import { me, participantByHandle, participants, presence } from '../state/view-state.js';
import type { Participant } from '../types.js';
import type { PresenceConnection, PresenceState } from '../types.js';

/**
 * Who is speaking: the handle, then the kind as a badge, then the nickname.
 * The kind is an element of its own that only the hub's record fills, right
 * after the handle, so a nickname such as "@dave (human)" cannot pass for it;
 * the nickname is quoted and isolated (<bdi>), so it reads as a name and its
 * text cannot reorder anything around it. Kind, client, model and roles on hover.
 */
export function AuthorChip({ handle }: { handle: string }) {
  const p = participantByHandle(handle);
  const profile = p?.profile;
  const parts = [profile?.kind ?? 'participant', profile?.client, profile?.model, ...(profile?.roles ?? [])].filter(Boolean);
  return (
    <span class={`author kind-${profile?.kind ?? 'agent'}`} title={parts.join(' · ')}>
      <span class="handle">@{handle}</span>
      {profile && (
        <span class={`kind-badge kind-badge-${profile.kind}`} data-kind={profile.kind}>
          {profile.kind}
        </span>
      )}
      {p?.hub && <HubBadge hub={p.hub} />}
      {profile?.nickname && (
        <span class="nickname" title="Nickname, chosen by the participant">
          “<bdi>{profile.nickname}</bdi>”
        </span>
      )}
    </span>
  );
}

/**
 * The linked hub a participant is hosted on ("on build-box"), for the
 * participants of other hubs: absent for the ones this hub hosts. Like the
 * kind, only the hub's record fills it.
 */
export function HubBadge({ hub }: { hub: string }) {
  return (
    <span class="hub-badge" data-hub={hub} title={`Hosted on the linked hub ${hub}`}>
      on <bdi>{hub}</bdi>
    </span>
  );
}

const CONNECTIONS: Record<PresenceConnection, string> = {
  connected: 'connected',
  waiting: 'waiting',
  offline: 'offline',
};

const ACTIVITIES: Partial<Record<PresenceState, string>> = {
  thinking: 'thinking',
  typing: 'typing',
  idle: 'idle',
};

/**
 * A participant's presence as a chip: connected (an open MCP session or page),
 * waiting (blocked in a wait for something to do) or offline, then what they
 * said they are doing when it is more than listening. No presence yet reads
 * as offline.
 */
export function PresenceChip({ handle }: { handle: string }) {
  const info = presence.value[handle];
  const connection = info?.connection ?? 'offline';
  const activity = connection === 'offline' ? undefined : ACTIVITIES[info?.state ?? 'offline'];
  const label = activity ? `${CONNECTIONS[connection]} · ${activity}` : CONNECTIONS[connection];
  return (
    <span
      class={`presence presence-${connection}${activity ? ' presence-busy' : ''}`}
      data-handle={handle}
      data-connection={connection}
      data-state={info?.state ?? 'offline'}
      title={info?.note ?? label}
    >
      {label}
    </span>
  );
}

/** Everyone but the signed-in person, to pick whom to write to, ask or invite. */
export function othersThanMe(): Participant[] {
  const mine = me.value?.participant.handle;
  return participants.value.filter((p) => p.handle !== mine);
}

/** A labelled choice of participant; with nothing chosen yet, the first one counts as chosen. */
export function ParticipantSelect({ label, options, value, onChange }: { label: string; options: Participant[]; value: string; onChange(handle: string): void }) {
  return (
    <label>
      {label}
      <select value={value || options[0]?.handle} onChange={(e) => onChange(e.currentTarget.value)}>
        {options.map((p) => (
          <option key={p.handle} value={p.handle}>
            @{p.handle} ({p.profile.kind})
          </option>
        ))}
      </select>
    </label>
  );
}
