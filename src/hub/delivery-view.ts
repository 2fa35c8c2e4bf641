// Delivery states as participants see them: for what they received (which
// items still await an acknowledgement) and for what they sent (per
// recipient: delivered, put into the agent's context, acknowledged, and when).

import { parseInput } from '../errors/parley-error.js';
import { DeliveriesInputSchema, type DeliveriesInput } from '../schema/inputs.js';
import type { DeliveryFilter, DeliveryRow, SentDeliveryRow } from '../store/delivery-store.js';
import { rowToEvent, type EventRow } from '../store/event-log.js';
import { expiryOf } from './peer-outbox.js';
import { mayRead } from './channel-access.js';
import { chatOpenFor, reachesWithoutChat } from './chat-exclusion.js';
import type { HubContext } from './context.js';
import type { Caller } from './records.js';
import { dmPeer } from './thread-ref.js';
import type { DeliveryTimes, ReceivedDelivery, SentDelivery } from './answers.js';

/** Which deliveries a list shows: a state (default: unacknowledged ones) held for at least older_than_ms. */
export function deliveryFilterOf(ctx: HubContext, input: DeliveriesInput): DeliveryFilter {
  const parsed = parseInput(DeliveriesInputSchema, input);
  return { state: parsed.state, limit: parsed.limit, ...(parsed.older_than_ms === undefined ? {} : { since: ctx.now() - parsed.older_than_ms }) };
}

const iso = (ms: number | null): string | undefined => (ms === null ? undefined : new Date(ms).toISOString());

export function deliveryTimes(row: DeliveryRow): DeliveryTimes {
  const [delivered, injected, acknowledged] = [iso(row.delivered_at), iso(row.injected_at), iso(row.acknowledged_at)];
  return {
    state: row.state,
    ...(delivered === undefined ? {} : { delivered_at: delivered }),
    ...(injected === undefined ? {} : { injected_at: injected }),
    ...(acknowledged === undefined ? {} : { acknowledged_at: acknowledged }),
  };
}

/** Per-recipient deliveries of what the caller sent, newest first. */
export function sentDeliveries(ctx: HubContext, caller: Caller, filter: DeliveryFilter): SentDelivery[] {
  const me = caller.participant.id;
  const rows: SentDeliveryRow[] = ctx.store.deliveries.sent(me, caller.session.id, ctx.store.events.visibleUpTo, filter);
  const chatOpen = chatOpenFor(ctx.config, caller.participant.profile);
  return rows.flatMap((row) => {
    const thread = ctx.state.threads.get(row.thread_id);
    const event = ctx.store.events.bySeq(row.seq);
    if (!thread || !event) return [];
    if (!chatOpen && !reachesWithoutChat(row.reason)) return [];
    const peer = dmPeer(ctx, thread, me);
    const expiredAt = expiredAtOf(ctx, row, event);
    return [
      {
        id: event.id,
        seq: row.seq,
        thread: { id: thread.id, name: thread.name, kind: thread.kind, ...(peer === undefined ? {} : { with: peer }) },
        to: row.recipient_handle,
        reason: row.reason,
        ...deliveryTimes(row),
        ...(expiredAt === undefined ? {} : { state: 'expired' as const, expired_at: new Date(expiredAt).toISOString() }),
      },
    ];
  });
}

/**
 * When a delivery to a participant of another hub expired (epoch ms): its
 * TTL ran out before that hub acknowledged the event (its link was down
 * all along); undefined while it may still reach it, or once it did.
 */
function expiredAtOf(ctx: HubContext, row: SentDeliveryRow, event: EventRow): number | undefined {
  const hubKey = ctx.state.participants.get(row.recipient_id)?.hubKey;
  if (hubKey === undefined || row.state !== 'pending') return undefined;
  const unsent = ctx.store.peerCursors.expiredAt(row.seq);
  if (unsent !== undefined || ctx.store.peerCursors.cursor(hubKey) >= row.seq) return unsent;
  const expiresAt = expiryOf(event, ctx.config.trust.ttlSecs);
  return ctx.now() >= expiresAt ? expiresAt : undefined;
}

/** The caller's targeted items in a delivery state (e.g. delivered but not acknowledged for some minutes), newest first. */
export function deliveriesIn(ctx: HubContext, caller: Caller, filter: DeliveryFilter): ReceivedDelivery[] {
  const me = caller.participant.id;
  const chatOpen = chatOpenFor(ctx.config, caller.participant.profile);
  return ctx.store.deliveries.received(me, caller.session.id, ctx.store.events.visibleUpTo, filter).flatMap((d) => {
    const row = ctx.store.events.bySeq(d.seq);
    const thread = ctx.state.threads.get(d.thread_id);
    if (!row || !thread || !mayRead(ctx, thread, me)) return [];
    if (!chatOpen && !reachesWithoutChat(d.reason)) return [];
    return [{ reason: d.reason, ...deliveryTimes(d), event: rowToEvent(row) }];
  });
}
