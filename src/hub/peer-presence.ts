// Presence across linked hubs: what this hub tells its peers of the
// participants it hosts, and what it takes from theirs (remote-presence.ts).

import type { PresenceState } from '../schema/inputs.js';
import type { PresenceConnection, PresenceInfo } from '../schema/views.js';
import { participantIdOf } from '../trust/node-id.js';
import type { HubContext } from './context.js';
import { rawKeyOf } from './participant-key.js';

/** One participant's presence in one session, as hubs gossip it. */
export interface PresenceGossip {
  /** The participant's key (raw). */
  key: Uint8Array;
  /** The session's name. */
  session: string;
  state: PresenceState;
  connection: PresenceConnection;
  /** When it was last seen (ms since the epoch). */
  lastSeen: number;
  note: string | null;
}

/** The presence of every participant this hub hosts, in every session it is present in. */
export function localPresence(ctx: HubContext): PresenceGossip[] {
  const out: PresenceGossip[] = [];
  for (const session of ctx.state.sessions.values()) {
    for (const info of ctx.presence.list(session.id)) {
      const participant = ctx.state.participants.get(info.participant);
      if (participant && participant.hubKey === undefined) out.push(gossipOf(info, session.name, rawKeyOf(participant)));
    }
  }
  return out;
}

/** What a published presence change says to peers; undefined when it is not of a participant hosted here. */
export function gossipOfChange(ctx: HubContext, sessionId: string, info: PresenceInfo): PresenceGossip | undefined {
  const participant = ctx.state.participants.get(info.participant);
  const session = ctx.state.sessions.get(sessionId);
  if (!participant || participant.hubKey !== undefined || !session) return undefined;
  return gossipOf(info, session.name, rawKeyOf(participant));
}

function gossipOf(info: PresenceInfo, session: string, key: Uint8Array): PresenceGossip {
  return { key, session, state: info.state, connection: info.connection, lastSeen: Date.parse(info.lastSeen), note: info.note ?? null };
}

/**
 * Takes what the hub holding `fromHub` gossips (at `seq`) of the participants
 * it hosts, in sessions they are members of here; anything else is left out.
 * Each change is published, as a local one is. Returns how many were left out.
 */
export function takePresence(ctx: HubContext, fromHub: string, seq: number, items: readonly PresenceGossip[]): number {
  let leftOut = 0;
  for (const item of items) {
    const participant = ctx.state.participants.get(participantIdOf(item.key));
    const session = ctx.state.sessionByName(item.session);
    if (!participant || participant.hubKey !== fromHub || !session?.members.has(participant.id)) {
      leftOut += 1;
      continue;
    }
    const info: PresenceInfo = {
      participant: participant.id,
      handle: participant.handle,
      state: item.state,
      connection: item.connection,
      seq,
      lastSeen: new Date(item.lastSeen).toISOString(),
      ...(item.note === null ? {} : { note: item.note }),
      details: { profile: participant.profile },
      hub: participant.hub ?? '',
    };
    const shown = ctx.remotePresence.heard(fromHub, session.id, info, seq);
    if (shown) ctx.bus.publish({ kind: 'presence', session: session.id, presence: shown });
  }
  return leftOut;
}

/** The link to a hub went down: its participants show offline (and stay listed). */
export function hubDown(ctx: HubContext, hubKey: string): void {
  for (const { session, presence } of ctx.remotePresence.hubDown(hubKey)) ctx.bus.publish({ kind: 'presence', session, presence });
}
