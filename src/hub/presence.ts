import type { PresenceState } from '../schema/inputs.js';
import type { Profile } from '../schema/participant.js';

/**
 * Presence: kept in memory only (Agent Bridge: ephemeral by default), per
 * session and participant. Conflicting updates resolve by the highest
 * per-participant seq (Meerkat), not by clock. A participant with no sign of
 * life for `ttlSeconds` reads as offline.
 */
export type { PresenceInfo } from '../schema/views.js';
import type { PresenceInfo } from '../schema/views.js';

interface Entry {
  participant: string;
  handle: string;
  state: PresenceState;
  seq: number;
  lastSeen: number;
  thread?: string;
  note?: string;
  profile: Profile;
  /** The state last published, so expiry to offline is announced once. */
  announced: PresenceState;
}

export interface PresenceUpdate {
  state: PresenceState;
  seq?: number;
  thread?: string;
  note?: string;
}

export class PresenceTracker {
  private readonly entries = new Map<string, Map<string, Entry>>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  /** Applies an update; returns the new presence, or undefined when a newer seq already won. */
  set(session: string, who: { id: string; handle: string; profile: Profile }, update: PresenceUpdate): PresenceInfo | undefined {
    const entry = this.entry(session, who);
    const seq = update.seq ?? entry.seq + 1;
    if (update.seq !== undefined && update.seq <= entry.seq) return undefined;
    entry.seq = seq;
    entry.state = update.state;
    entry.lastSeen = this.now();
    entry.profile = who.profile;
    if (update.thread === undefined) delete entry.thread;
    else entry.thread = update.thread;
    if (update.note === undefined) delete entry.note;
    else entry.note = update.note;
    entry.announced = update.state;
    return this.view(entry);
  }

  /**
   * Records a sign of life. Returns the presence when it changed what others
   * see (the participant was offline or unknown), so the caller can announce it.
   */
  touch(session: string, who: { id: string; handle: string; profile: Profile }): PresenceInfo | undefined {
    const entry = this.entry(session, who);
    const wasOffline = this.effectiveState(entry) === 'offline';
    entry.lastSeen = this.now();
    if (entry.state === 'offline') entry.state = 'listening';
    if (wasOffline) {
      entry.seq += 1;
      entry.announced = entry.state;
      return this.view(entry);
    }
    return undefined;
  }

  get(session: string, participant: string): PresenceInfo | undefined {
    const entry = this.entries.get(session)?.get(participant);
    return entry ? this.view(entry) : undefined;
  }

  list(session: string): PresenceInfo[] {
    return [...(this.entries.get(session)?.values() ?? [])].map((e) => this.view(e));
  }

  /** Participants that went offline by expiry since the last sweep (to announce once each). */
  sweep(): Array<{ session: string; presence: PresenceInfo }> {
    const changed: Array<{ session: string; presence: PresenceInfo }> = [];
    for (const [session, bySession] of this.entries) {
      for (const entry of bySession.values()) {
        if (entry.announced !== 'offline' && this.effectiveState(entry) === 'offline') {
          entry.announced = 'offline';
          changed.push({ session, presence: this.view(entry) });
        }
      }
    }
    return changed;
  }

  private entry(session: string, who: { id: string; handle: string; profile: Profile }): Entry {
    let bySession = this.entries.get(session);
    if (!bySession) {
      bySession = new Map();
      this.entries.set(session, bySession);
    }
    let entry = bySession.get(who.id);
    if (!entry) {
      entry = {
        participant: who.id,
        handle: who.handle,
        state: 'offline',
        seq: 0,
        lastSeen: 0,
        profile: who.profile,
        announced: 'offline',
      };
      bySession.set(who.id, entry);
    }
    return entry;
  }

  private effectiveState(entry: Entry): PresenceState {
    if (entry.state === 'offline') return 'offline';
    return this.now() - entry.lastSeen > this.ttlMs ? 'offline' : entry.state;
  }

  private view(entry: Entry): PresenceInfo {
    return {
      participant: entry.participant,
      handle: entry.handle,
      state: this.effectiveState(entry),
      seq: entry.seq,
      lastSeen: new Date(entry.lastSeen).toISOString(),
      ...(entry.thread === undefined ? {} : { thread: entry.thread }),
      ...(entry.note === undefined ? {} : { note: entry.note }),
      details: { profile: entry.profile },
    };
  }
}
