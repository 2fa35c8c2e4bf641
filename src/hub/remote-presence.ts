// The presence of participants linked hubs host, as their hubs gossip it:
// per session and participant, the highest gossip seq wins; shown offline
// once its hub has not told it again within the presence TTL, or once the
// link to its hub is down (offline, not gone: they stay in `who`).

import type { PresenceInfo } from '../schema/views.js';

interface Heard {
  info: PresenceInfo;
  hubKey: string;
  gossipSeq: number;
  heardAt: number;
}

export class RemotePresence {
  readonly #bySession = new Map<string, Map<string, Heard>>();
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(ttlMs: number, now: () => number) {
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  /** Takes what a hub said of one of its participants in a session; the presence now shown, when it changed. */
  heard(hubKey: string, session: string, info: PresenceInfo, gossipSeq: number): PresenceInfo | undefined {
    let bySession = this.#bySession.get(session);
    if (!bySession) this.#bySession.set(session, (bySession = new Map()));
    const before = bySession.get(info.participant);
    if (before && before.gossipSeq >= gossipSeq) return undefined;
    bySession.set(info.participant, { info, hubKey, gossipSeq, heardAt: this.#now() });
    return before && sameShown(before.info, info) ? undefined : info;
  }

  /** The participant's presence in the session as shown now (offline once its hub has been silent for the TTL). */
  get(session: string, participant: string): PresenceInfo | undefined {
    const heard = this.#bySession.get(session)?.get(participant);
    if (!heard) return undefined;
    return this.#now() - heard.heardAt > this.#ttlMs ? offline(heard.info) : heard.info;
  }

  /** The link to a hub went down: its participants are shown offline; those whose presence changed, by session. */
  hubDown(hubKey: string): Array<{ session: string; presence: PresenceInfo }> {
    const changed: Array<{ session: string; presence: PresenceInfo }> = [];
    for (const [session, bySession] of this.#bySession) {
      for (const heard of bySession.values()) {
        if (heard.hubKey !== hubKey || heard.info.connection === 'offline') continue;
        heard.info = offline(heard.info);
        changed.push({ session, presence: heard.info });
      }
    }
    return changed;
  }
}

function offline(info: PresenceInfo): PresenceInfo {
  return { ...info, state: 'offline', connection: 'offline' };
}

function sameShown(a: PresenceInfo, b: PresenceInfo): boolean {
  return a.state === b.state && a.connection === b.connection && a.note === b.note;
}
