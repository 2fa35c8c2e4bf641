// Presence: kept in memory only (ephemeral by default, derived
// from live connections), per session and participant. A participant is
// present while it holds a live connection: an MCP session or a live stream
// makes it `connected`, a `wait` in progress makes it `waiting` (the
// standby). A one-shot call only records when it was last seen. While present
// its state is the one it declared (listening, thinking, …;
// listening by default); without a connection it is offline. Declared updates
// resolve by the highest per-participant seq, not by clock.
//
// An agent CLI's hooks also report what the agent is doing (a tool run or a
// prompt: thinking; a stop hook's wait: listening). A report is shown over the
// declared state, and keeps the agent present, for the presence TTL unless
// another report or a declaration comes first.

import type { PresenceState } from '../schema/inputs.js';
import type { Profile } from '../schema/participant.js';
import type { PresenceConnection } from '../schema/views.js';

export type { PresenceInfo } from '../schema/views.js';
import type { PresenceInfo } from '../schema/views.js';

/** What keeps a participant present: an MCP session, a live stream, or a wait in progress. */
export type ConnectionKind = 'mcp' | 'stream' | 'wait';

interface Entry {
  participant: string;
  handle: string;
  /** The state the participant declared; shown while it is connected. */
  state: PresenceState;
  seq: number;
  lastSeen: number;
  thread?: string;
  note?: string;
  profile: Profile;
  /** Live connections held, by kind. */
  held: Record<ConnectionKind, number>;
  /** What a hook last reported the agent doing, shown until `until` (ms). */
  activity?: { state: PresenceState; until: number };
}

export interface PresenceUpdate {
  state: PresenceState;
  seq?: number;
  thread?: string;
  note?: string;
}

type Who = { id: string; handle: string; profile: Profile };

export class PresenceTracker {
  private readonly entries = new Map<string, Map<string, Entry>>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  /** Applies a declared update; returns the new presence, or undefined when a newer seq already won. */
  set(session: string, who: Who, update: PresenceUpdate): PresenceInfo | undefined {
    const entry = this.entry(session, who);
    const seq = update.seq ?? entry.seq + 1;
    if (update.seq !== undefined && update.seq <= entry.seq) return undefined;
    entry.seq = seq;
    entry.state = update.state;
    // A declaration is newer than any hook's report.
    delete entry.activity;
    entry.lastSeen = this.now();
    entry.profile = who.profile;
    if (update.thread === undefined) delete entry.thread;
    else entry.thread = update.thread;
    if (update.note === undefined) delete entry.note;
    else entry.note = update.note;
    return this.view(entry);
  }

  /**
   * A hook's report of what the agent is doing: shown (and the agent present)
   * for `forMs`. Returns the presence when what others see changed.
   */
  report(session: string, who: Who, state: PresenceState, forMs: number): PresenceInfo | undefined {
    const entry = this.entry(session, who);
    const before = this.shown(entry);
    entry.activity = { state, until: this.now() + forMs };
    entry.lastSeen = this.now();
    entry.profile = who.profile;
    return this.changed(entry, before);
  }

  /** The reported activity ends now (the agent's session ended). Returns the presence when what others see changed. */
  endActivity(session: string, participant: string): PresenceInfo | undefined {
    const entry = this.entries.get(session)?.get(participant);
    if (!entry?.activity) return undefined;
    const before = this.shown(entry);
    delete entry.activity;
    entry.lastSeen = this.now();
    return this.changed(entry, before);
  }

  /** Reports whose time is up, dropped; returns each presence whose view changed, to announce. */
  expireActivities(): Array<{ session: string; presence: PresenceInfo }> {
    const ended: Array<{ session: string; presence: PresenceInfo }> = [];
    const now = this.now();
    for (const [session, bySession] of this.entries) {
      for (const entry of bySession.values()) {
        if (!entry.activity || entry.activity.until > now) continue;
        // Shown as it was until now; it reverts to the declared state (or offline).
        const before = `${entry.activity.state}/${connectionOf(entry) === 'offline' ? 'connected' : connectionOf(entry)}`;
        delete entry.activity;
        const presence = this.changed(entry, before);
        if (presence) ended.push({ session, presence });
      }
    }
    return ended;
  }

  /** Records a sign of life (a one-shot call): last seen moves, presence does not. */
  touch(session: string, who: Who): void {
    this.entry(session, who).lastSeen = this.now();
  }

  /** A live connection opened. Returns the presence when what others see changed, so the caller can announce it. */
  open(session: string, who: Who, kind: ConnectionKind): PresenceInfo | undefined {
    const entry = this.entry(session, who);
    const before = this.shown(entry);
    entry.held[kind] += 1;
    entry.lastSeen = this.now();
    return this.changed(entry, before);
  }

  /** A live connection closed. Returns the presence when what others see changed. */
  close(session: string, participant: string, kind: ConnectionKind): PresenceInfo | undefined {
    const entry = this.entries.get(session)?.get(participant);
    if (!entry || entry.held[kind] === 0) return undefined;
    const before = this.shown(entry);
    entry.held[kind] -= 1;
    entry.lastSeen = this.now();
    return this.changed(entry, before);
  }

  get(session: string, participant: string): PresenceInfo | undefined {
    const entry = this.entries.get(session)?.get(participant);
    return entry ? this.view(entry) : undefined;
  }

  list(session: string): PresenceInfo[] {
    return [...(this.entries.get(session)?.values() ?? [])].map((e) => this.view(e));
  }

  /**
   * Gone: no live connection, and not seen for the TTL. A meeting place taken
   * by one-shot calls (the CLI) is kept that long after the last call.
   */
  isGone(session: string, participant: string): boolean {
    const entry = this.entries.get(session)?.get(participant);
    return entry === undefined || this.gone(entry);
  }

  /** Whether the participant holds a live session anywhere: in some session, not gone (see isGone). */
  isLive(participant: string): boolean {
    for (const bySession of this.entries.values()) {
      const entry = bySession.get(participant);
      if (entry !== undefined && !this.gone(entry)) return true;
    }
    return false;
  }

  private gone(entry: Entry): boolean {
    return this.connection(entry) === 'offline' && this.now() - entry.lastSeen > this.ttlMs;
  }

  private entry(session: string, who: Who): Entry {
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
        state: 'listening',
        seq: 0,
        lastSeen: 0,
        profile: who.profile,
        held: { mcp: 0, stream: 0, wait: 0 },
      };
      bySession.set(who.id, entry);
    }
    return entry;
  }

  /** A fresh report keeps the agent present: its hooks run, so it is there. */
  private connection(entry: Entry): PresenceConnection {
    const held = connectionOf(entry);
    return held === 'offline' && this.activityOf(entry) ? 'connected' : held;
  }

  private activityOf(entry: Entry): PresenceState | undefined {
    return entry.activity && entry.activity.until > this.now() ? entry.activity.state : undefined;
  }

  /** What others see of the entry (its state and connection), to tell whether a change is worth announcing. */
  private shown(entry: Entry): string {
    const view = this.view(entry);
    return `${view.state}/${view.connection}`;
  }

  private changed(entry: Entry, before: string): PresenceInfo | undefined {
    return this.shown(entry) === before ? undefined : this.view(entry);
  }

  private view(entry: Entry): PresenceInfo {
    const connection = this.connection(entry);
    return {
      participant: entry.participant,
      handle: entry.handle,
      state: connection === 'offline' ? 'offline' : (this.activityOf(entry) ?? entry.state),
      connection,
      seq: entry.seq,
      lastSeen: new Date(entry.lastSeen).toISOString(),
      ...(entry.thread === undefined ? {} : { thread: entry.thread }),
      ...(entry.note === undefined ? {} : { note: entry.note }),
      details: { profile: entry.profile },
    };
  }
}

function connectionOf(entry: Entry): PresenceConnection {
  if (entry.held.wait > 0) return 'waiting';
  return entry.held.mcp > 0 || entry.held.stream > 0 ? 'connected' : 'offline';
}
