import type { PresenceInfo } from '../schema/views.js';
import type { HubContext } from './context.js';

/** What holding presence uses: the tracker, the bus that announces it, and the meetings a participant leaves. */
type PresenceContext = Pick<HubContext, 'presence' | 'bus' | 'meetings'>;
import { leaveEveryMeeting } from './meeting-ops.js';
import type { ConnectionKind } from './presence.js';
import type { Caller } from './records.js';

/**
 * Holds a participant present for as long as one live connection lasts (an
 * MCP session, a live stream, a wait). Changes of presence are announced on
 * the live bus. When the participant's last connection ends it is offline,
 * and it leaves every meeting it was in (join at session start, leave
 * at session end), so a client that went away is not left in the room.
 * Returns the release, which may be called more than once.
 */
export function holdPresence(ctx: PresenceContext, caller: Caller, kind: ConnectionKind): () => void {
  const session = caller.session.id;
  const participant = caller.participant;
  const opened = ctx.presence.open(session, participant, kind);
  if (opened) ctx.bus.publish({ kind: 'presence', session, presence: opened });
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    const closed = ctx.presence.close(session, participant.id, kind);
    if (closed) announcePresence(ctx, session, closed);
  };
}

/**
 * Announces a change of presence on the live bus; a participant it leaves
 * offline also leaves every meeting it was in.
 */
export function announcePresence(ctx: PresenceContext, session: string, presence: PresenceInfo): void {
  ctx.bus.publish({ kind: 'presence', session, presence });
  if (presence.connection === 'offline') leaveEveryMeeting(ctx, session, { id: presence.participant, handle: presence.handle });
}
