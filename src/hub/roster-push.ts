// Who may hand the hub a roster, and when it asks for a confirmation.
//
// A first roster decides who everyone is, and any human is an admin in local
// mode: only the hub's owner (the home's admin token, the roster file, the
// library) may end local mode, never a participant's token, whatever the
// roster's signatures (an export carries one signed by the hub key).
//
// A version that leaves out participants who are using the hub right now
// locks them out on their next call (NOT_IN_ROSTER). That may be the point
// (removing a member), or a roster made from the wrong list: the hub asks for
// a confirmation before it puts such a version in force.

import { ParleyError } from '../errors/parley-error.js';
import type { Roster } from '../schema/roster.js';
import { memberOf } from '../trust/roster.js';
import type { HubContext } from './context.js';
import { keyTextOf, rawKeyOf } from './participant-key.js';
import type { ParticipantRecord } from './records.js';

/**
 * Who hands a roster in (`owner`: the home's admin token, the library; `participant`: a participant's
 * token; `peer`: a linked hub offering a newer version, taken only over one in force), and whether
 * leaving out live members is confirmed.
 */
export interface RosterPushOptions {
  from?: 'owner' | 'participant' | 'peer';
  confirm?: boolean;
}

/** Refuses (FORBIDDEN) a participant's push while no roster is in force. */
export function assertMayPush(ctx: Pick<HubContext, 'rosters'>, from: 'owner' | 'participant' | 'peer'): void {
  if (from !== 'owner' && ctx.rosters.current() === undefined) {
    throw new ParleyError(
      'FORBIDDEN',
      'A first roster ends local mode for everyone, so only the hub\'s owner may put it in force: run "parley roster init" or "parley roster sign" on the hub\'s machine (they use the home\'s admin token), or put it in place as the roster file the hub loads at start.',
    );
  }
}

/**
 * The participants registered here who have access under `current` (every
 * one in local mode), hold a live session (see PresenceTracker.isLive), and
 * are not in `next`.
 */
export function liveMembersDropped(ctx: Pick<HubContext, 'state' | 'presence'>, current: Roster | undefined, next: Roster): ParticipantRecord[] {
  return [...ctx.state.participants.values()].filter((participant) => {
    const raw = rawKeyOf(participant);
    const member = current === undefined || memberOf(current, raw) !== undefined;
    return member && memberOf(next, raw) === undefined && ctx.presence.isLive(participant.id);
  });
}

/** Refuses (ROSTER_UNCONFIRMED, naming them) a version that drops members holding live sessions, unless confirmed. */
export function assertDropsConfirmed(ctx: Pick<HubContext, 'state' | 'presence'>, current: Roster | undefined, next: Roster, confirmed: boolean): void {
  if (confirmed) return;
  const dropped = liveMembersDropped(ctx, current, next);
  if (dropped.length === 0) return;
  const names = dropped.map((p) => `@${p.handle}`).join(', ');
  throw new ParleyError(
    'ROSTER_UNCONFIRMED',
    `Roster ${next.org_id} v${next.version} leaves out ${names}, who ${dropped.length === 1 ? 'holds a live session' : 'hold live sessions'} on this hub: they would be refused (NOT_IN_ROSTER) from their next call. Nothing changed.`,
    { field: 'confirm', hint: 'confirm-roster', details: { dropped: dropped.map((p) => ({ handle: p.handle, pubkey: keyTextOf(p) })) } },
  );
}
