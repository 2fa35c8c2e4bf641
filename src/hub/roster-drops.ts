import { ParleyError } from '../errors/parley-error.js';
import type { Roster } from '../schema/roster.js';
import { memberOf } from '../trust/roster.js';
import type { HubContext } from './context.js';
import { keyTextOf, rawKeyOf } from './participant-key.js';
import type { ParticipantRecord } from './state.js';

/**
 * A roster version that leaves out participants who are using the hub right
 * now locks them out on their next call (NOT_IN_ROSTER). That may be the
 * point (removing a member), or a roster made from the wrong list: the hub
 * asks for a confirmation before it puts such a version in force.
 */

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
