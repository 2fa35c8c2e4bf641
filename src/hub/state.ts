// The hub's in-memory view of the directory and the threads: every lookup on
// the posting path is a map access. It is derived from the store, written
// through on every change, and rebuilt from the store if a batch fails.

import { ParleyError } from '../errors/parley-error.js';
import { initialControlState, type ThreadControlState } from '../schema/control.js';
import type { Profile } from '../schema/participant.js';
import type { Store } from '../store/store.js';
import type { ParticipantRecord, SessionRecord, ThreadRecord } from './records.js';

export class HubState {
  readonly sessions = new Map<string, SessionRecord>();
  private readonly sessionsByName = new Map<string, SessionRecord>();
  readonly participants = new Map<string, ParticipantRecord>();
  private readonly participantsByHandle = new Map<string, ParticipantRecord>();
  /** By the handle each was given on its own hub (a linked hub's may be kept here as handle@hubname). */
  private readonly participantsByOwnHandle = new Map<string, Set<ParticipantRecord>>();
  readonly threads = new Map<string, ThreadRecord>();
  private readonly channels = new Map<string, ThreadRecord>();
  private readonly dms = new Map<string, ThreadRecord>();
  readonly threadsBySession = new Map<string, Set<string>>();
  nextSeq = 1;
  /**
   * The seq of the last event appended by a participant hosted here of a kind
   * that crosses to linked hubs (at start: the last seq, to be safe), so the
   * fan-out reads its log only when one may wait for a peer.
   */
  ownCrossingUpTo = 0;

  constructor(private readonly store: Store) {
    this.reload();
  }

  /** Rebuilds every map from the store (at start, and after a failed batch). */
  reload(): void {
    this.sessions.clear();
    this.sessionsByName.clear();
    this.participants.clear();
    this.participantsByHandle.clear();
    this.participantsByOwnHandle.clear();
    this.threads.clear();
    this.channels.clear();
    this.dms.clear();
    this.threadsBySession.clear();
    for (const row of this.store.directory.allSessions()) {
      this.addSession({ id: row.id, name: row.name, createdAt: row.created_at, members: new Set() });
    }
    for (const row of this.store.directory.allParticipants()) {
      const profile = JSON.parse(row.profile) as Profile;
      this.addParticipant({
        id: row.id,
        handle: row.handle,
        kind: row.kind,
        profile: { ...profile, kind: row.kind },
        publicKey: row.public_key.toString('base64'),
        createdAt: new Date(row.created_at).toISOString(),
        ...(row.hub_key === null ? {} : { hubKey: row.hub_key, hub: row.hub_name ?? '' }),
      });
    }
    for (const row of this.store.directory.allMembers()) this.sessions.get(row.session_id)?.members.add(row.participant_id);
    for (const row of this.store.threads.all()) {
      this.addThread({
        id: row.id,
        sessionId: row.session_id,
        kind: row.kind,
        name: row.name,
        ...(row.parent_id === null ? {} : { parentId: row.parent_id }),
        ...(row.dm_key === null ? {} : { dmKey: row.dm_key }),
        createdBy: row.created_by,
        createdSeq: row.created_seq,
        state: { ...initialControlState(), ...(JSON.parse(row.state) as Partial<ThreadControlState>) },
        members: new Map(),
      });
    }
    for (const row of this.store.threads.allMembers()) {
      const thread = this.threads.get(row.thread_id);
      if (!thread) continue;
      thread.members.set(row.participant_id, {
        participantId: row.participant_id,
        subscription: row.subscription,
        invited: row.invited === 1,
        ...(row.invite_profile === null ? {} : { inviteProfile: JSON.parse(row.invite_profile) as Partial<Profile> }),
        hardMuted: row.hard_muted === 1,
        ...(row.muted_by === null ? {} : { mutedBy: row.muted_by }),
      });
    }
    // Never hand out a seq twice, even one that was rolled back.
    this.nextSeq = Math.max(this.nextSeq, this.store.events.maxSeq() + 1);
    this.ownCrossingUpTo = this.nextSeq - 1;
  }

  addSession(session: SessionRecord): void {
    this.sessions.set(session.id, session);
    this.sessionsByName.set(session.name.toLowerCase(), session);
    if (!this.threadsBySession.has(session.id)) this.threadsBySession.set(session.id, new Set());
  }

  sessionByName(name: string): SessionRecord | undefined {
    return this.sessionsByName.get(name.toLowerCase());
  }

  addParticipant(participant: ParticipantRecord): void {
    this.participants.set(participant.id, participant);
    this.participantsByHandle.set(participant.handle.toLowerCase(), participant);
    this.#indexOwnHandle(participant);
  }

  /** Every participant whose own handle (on the hub that hosts it) is `handle`, whichever hub hosts it. */
  participantsByOwnHandleOf(handle: string): ReadonlySet<ParticipantRecord> {
    return this.participantsByOwnHandle.get(handle.toLowerCase()) ?? NONE;
  }

  #indexOwnHandle(participant: ParticipantRecord): void {
    const own = ownHandleOf(participant.handle).toLowerCase();
    let set = this.participantsByOwnHandle.get(own);
    if (!set) this.participantsByOwnHandle.set(own, (set = new Set()));
    set.add(participant);
  }

  /** A participant's handle changed (one a linked hub hosts, renamed there). */
  rehandle(participant: ParticipantRecord, handle: string): void {
    if (this.participantsByHandle.get(participant.handle.toLowerCase()) === participant) this.participantsByHandle.delete(participant.handle.toLowerCase());
    this.participantsByOwnHandle.get(ownHandleOf(participant.handle).toLowerCase())?.delete(participant);
    participant.handle = handle;
    this.participantsByHandle.set(handle.toLowerCase(), participant);
    this.#indexOwnHandle(participant);
  }

  participantByHandle(handle: string): ParticipantRecord | undefined {
    return this.participantsByHandle.get(handle.toLowerCase());
  }

  participant(id: string): ParticipantRecord {
    const found = this.participants.get(id);
    if (!found) throw new ParleyError('NOT_FOUND', `No participant with id ${id}.`);
    return found;
  }

  addThread(thread: ThreadRecord): void {
    this.threads.set(thread.id, thread);
    if (thread.kind === 'channel') this.channels.set(channelKey(thread.sessionId, thread.name), thread);
    if (thread.kind === 'dm' && thread.dmKey) this.dms.set(channelKey(thread.sessionId, thread.dmKey), thread);
    let set = this.threadsBySession.get(thread.sessionId);
    if (!set) {
      set = new Set();
      this.threadsBySession.set(thread.sessionId, set);
    }
    set.add(thread.id);
  }

  renameChannel(thread: ThreadRecord, name: string): void {
    if (thread.kind === 'channel') {
      this.channels.delete(channelKey(thread.sessionId, thread.name));
      this.channels.set(channelKey(thread.sessionId, name), thread);
    }
    thread.name = name;
  }

  channel(sessionId: string, name: string): ThreadRecord | undefined {
    return this.channels.get(channelKey(sessionId, name));
  }

  dm(sessionId: string, dmKey: string): ThreadRecord | undefined {
    return this.dms.get(channelKey(sessionId, dmKey));
  }

  threadsOf(sessionId: string): ThreadRecord[] {
    const ids = this.threadsBySession.get(sessionId) ?? new Set<string>();
    const out: ThreadRecord[] = [];
    for (const id of ids) {
      const thread = this.threads.get(id);
      if (thread) out.push(thread);
    }
    return out;
  }
}

const NONE: ReadonlySet<ParticipantRecord> = new Set();

/** A handle as its own hub gives it: a linked hub's participant may be kept here as handle@hubname. */
export function ownHandleOf(handle: string): string {
  const at = handle.indexOf('@');
  return at < 0 ? handle : handle.slice(0, at);
}

function channelKey(sessionId: string, name: string): string {
  return `${sessionId}\u0000${name}`;
}

export function dmKeyOf(a: string, b: string): string {
  return a < b ? `${a}:${b}` : `${b}:${a}`;
}
