// What a linked hub is sent, read from this hub's own log after that hub's
// cursor: no queue of its own, so nothing is lost when a peer is away; the
// log is the queue, and the cursor moves only on the peer's acknowledgement.

import type { EventRow } from '../store/event-log.js';
import { CROSSING_EVENT_TYPES } from '../schema/event.js';
import { signedFieldsOfRow } from '../store/signed-fields.js';
import { eventSigningBytes } from '../trust/envelope.js';
import { ed25519Sign } from '../trust/ed25519.mjs';
import { mayRead } from './channel-access.js';
import type { HubContext } from './context.js';
import type { PeerEvent, SideStep } from './peer-intake.js';
import { MAX_SIDE_DEPTH } from '../schema/limits.js';
import { rawKeyOf } from './participant-key.js';
import type { ParticipantRecord, ThreadRecord } from './records.js';

/**
 * A page of what a peer is sent: its events, the seq it was read through (the
 * cursor once acknowledged), and whether it goes as written (live: each event
 * has TTL enough left to arrive within it) or as history the peer catches up
 * on (taken by id whatever its age).
 */
export interface OutboundPage {
  events: Array<PeerEvent & { seq: number }>;
  through: number;
  live: boolean;
  /** DMs of the page past their TTL, left out (expired unsent), with when each expired. */
  expired: Array<{ seq: number; at: number }>;
}

/** An event with less of its TTL left than this goes as history: it could expire on the way. */
const LIVE_MARGIN_MS = 30_000;

/** The event types that cross to linked hubs. */
const CROSSING_TYPES: readonly string[] = [...CROSSING_EVENT_TYPES];

/**
 * Up to `limit` events after `after` by participants hosted here (a hub
 * sends only its own participants' events; others reach the peer from their
 * own hubs), of a kind that crosses, kept to what the hub holding `peerKey`
 * may receive: in a channel a participant that hub hosts may read,
 * or a DM to one it hosts (a channel's access policy: to every linked hub);
 * a side channel's events go where its channel's do, naming the side channels.
 * Every control kind crosses (steering holds on every hub). Each goes with its author's signature (made here
 * if the signing worker has not stored it yet: Ed25519 gives the same one).
 */
export function outboundFor(ctx: HubContext, peerKey: string, after: number, limit: number): OutboundPage {
  const head = ctx.store.events.visibleUpTo;
  // Nothing of this hub's own since `after`: the log is not read (a hub that only receives reads nothing).
  if (ctx.state.ownCrossingUpTo <= after) return { events: [], through: Math.max(after, head), live: true, expired: [] };
  const rows = ctx.store.events.readOwnCommittedAfter(after, CROSSING_TYPES, limit);
  const through = rows.length === limit ? rows[rows.length - 1]!.seq : Math.max(after, head);
  const theirs = participantsOf(ctx, peerKey);
  const events: OutboundPage['events'] = [];
  const expired: OutboundPage['expired'] = [];
  if (theirs.length === 0) return { events, through, live: true, expired };
  const liveUntil = ctx.now() + LIVE_MARGIN_MS;
  let live = true;
  const readable = new Map<string, boolean>();
  const places = new Map<string, Place | undefined>();
  for (const row of rows) {
    const thread = ctx.state.threads.get(row.thread_id);
    const session = thread && ctx.state.sessions.get(thread.sessionId);
    if (!thread || !session) continue;
    // A channel's access policy goes to every linked hub: it decides what each of them sends there.
    if (thread.kind !== 'dm' && !isAccessControl(row)) {
      let may = readable.get(thread.id);
      if (may === undefined) readable.set(thread.id, (may = theirs.some((id) => mayRead(ctx, thread, id))));
      if (!may) continue;
    }
    const dmWith = thread.kind === 'dm' ? otherOf(ctx, thread, row.from_id) : undefined;
    if (thread.kind === 'dm' && dmWith?.hubKey !== peerKey) continue;
    // A DM its addressee's hub did not get within its TTL expired: its sender was told so (delivery-view.ts), and it is not sent after.
    const expiresAt = thread.kind === 'dm' ? expiryOf(row, ctx.config.trust.ttlSecs) : Infinity;
    if (expiresAt <= ctx.now()) {
      expired.push({ seq: row.seq, at: expiresAt });
      continue;
    }
    if (!places.has(thread.id)) places.set(thread.id, placeOf(ctx, thread));
    const place = places.get(thread.id);
    const signed = place && signedOf(ctx, row);
    if (!signed) continue;
    events.push({ seq: row.seq, ...signed, session: session.name, ...place!, dmWith: dmWith ? rawKeyOf(dmWith) : null, prev: row.prev_seq });
    if (live && expiryOf(row, 0) <= liveUntil) live = false;
  }
  return { events, through, live, expired };
}

/** When an event's TTL runs out (epoch ms): from the ts and TTL its author signed (the hub's own when the hub signed it). */
export function expiryOf(row: Pick<EventRow, 'signed_ts' | 'ts' | 'ttl_secs'>, defaultTtlSecs: number): number {
  return (row.signed_ts ?? row.ts) + (row.ttl_secs ?? defaultTtlSecs) * 1000;
}

/** Where an event goes, by name: its channel (none for a DM) and the side channels from it down. */
type Place = Pick<PeerEvent, 'channel' | 'side'>;

/**
 * An event of a channel or side channel as a linked hub is sent it, whoever
 * wrote it (history a peer catches up on), with the signature it was stored
 * with; undefined when it cannot be sent (its thread gone, no signature).
 * `places` caches each thread's place across calls of one page.
 */
export function channelEventOf(ctx: HubContext, row: EventRow, places: Map<string, Place | undefined>): (PeerEvent & { seq: number }) | undefined {
  const thread = ctx.state.threads.get(row.thread_id);
  const session = thread && ctx.state.sessions.get(thread.sessionId);
  if (!thread || !session || thread.kind === 'dm') return undefined;
  if (!places.has(thread.id)) places.set(thread.id, placeOf(ctx, thread));
  const place = places.get(thread.id);
  const signed = place && signedOf(ctx, row);
  return signed && { seq: row.seq, ...signed, session: session.name, ...place, dmWith: null, prev: row.prev_seq };
}

/** The thread's place; undefined for a side channel whose parents do not lead to a channel (a corrupt store). */
function placeOf(ctx: HubContext, thread: ThreadRecord): Place | undefined {
  if (thread.kind !== 'side') return { channel: thread.kind === 'channel' ? thread.name : null };
  const side: SideStep[] = [];
  let at: ThreadRecord | undefined = thread;
  while (at?.kind === 'side' && side.length < MAX_SIDE_DEPTH) {
    const members = [...at.members.values()].filter((m) => m.subscription !== 'unsubscribed').map((m) => m.participantId);
    side.unshift({ id: at.id, title: at.name, members });
    at = at.parentId === undefined ? undefined : ctx.state.threads.get(at.parentId);
  }
  return at?.kind === 'channel' ? { channel: at.name, side } : undefined;
}

/**
 * When the oldest event after `after` by a participant hosted here, of a kind
 * that crosses, was written (epoch ms); null when there is none. Some may not
 * be for the peer: the peer's cursor passes those as soon as it is linked.
 */
export function oldestWaitingAfter(ctx: HubContext, after: number): number | null {
  const [oldest] = ctx.store.events.readOwnCommittedAfter(after, CROSSING_TYPES, 1);
  return oldest ? oldest.ts : null;
}

/** How many events after `after` by participants hosted here, of a kind that crosses, wait (some may not be for the peer). */
export function countWaitingAfter(ctx: HubContext, after: number): number {
  return ctx.store.events.countOwnCommittedAfter(after, CROSSING_TYPES);
}

/** Whether the row sets a channel's access policy (a control's content is its one kind's key first). */
function isAccessControl(row: EventRow): boolean {
  return row.type === 'control' && row.content.startsWith('{"access"');
}

/** The ids of the participants the hub holding `peerKey` hosts. */
function participantsOf(ctx: HubContext, peerKey: string): string[] {
  const ids: string[] = [];
  for (const participant of ctx.state.participants.values()) if (participant.hubKey === peerKey) ids.push(participant.id);
  return ids;
}

/** The participant of a DM thread who is not `authorId`. */
function otherOf(ctx: HubContext, thread: ThreadRecord, authorId: string): ParticipantRecord | undefined {
  for (const id of thread.members.keys()) if (id !== authorId) return ctx.state.participants.get(id);
  return undefined;
}

/** The bytes its author signed and the signature; undefined (logged) when the signature cannot be had. */
function signedOf(ctx: HubContext, row: EventRow): { bytes: Uint8Array; sig: Uint8Array } | undefined {
  try {
    const bytes = eventSigningBytes(signedFieldsOfRow(row, (id) => rawKeyOf(ctx.state.participant(id))));
    const sig = ctx.store.events.signatureOf(row) ?? ed25519Sign(bytes, ctx.keys.participant(row.from_id).privateKey);
    return { bytes, sig };
  } catch (error) {
    ctx.logger.warn('an event could not be sent to a linked hub: its signature cannot be had', { event: row.id, error });
    return undefined;
  }
}
