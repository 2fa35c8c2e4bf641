/**
 * A link to another hub as `parley peer list` shows it (and the page and
 * `parley status`): where it listens, the state of the link, and what was
 * dropped from it, by reason.
 */

import { z } from 'zod';
import { ParticipantKindSchema } from './participant.js';
import { PublicKeyTextSchema } from './roster.js';

export const LINK_STATES = ['connected', 'connecting', 'refused', 'offline'] as const;
export const LinkStateSchema = z.enum(LINK_STATES);
export type LinkState = z.output<typeof LinkStateSchema>;

/** Why a link was refused, or a frame from a peer dropped. */
export const DROP_REASONS = [
  'local-mode',
  'not-in-roster',
  // The operator blocked it for a while (parley peer block):
  'blocked',
  'other-org',
  'bad-hello',
  'clock-skew',
  'hello-timeout',
  'roster-refused',
  'removed-from-roster',
  'malformed-frame',
  // Events a linked hub sent, refused one by one (the link stays up):
  'malformed-event',
  'bad-signature',
  // Sent as written, yet past its TTL or dated ahead of this hub's clock (beyond trust.clockSkewSecs):
  'expired',
  'future',
  'author-not-in-roster',
  'not-hosted',
  'not-for-this-hub',
  // History a peer served that is older than the window this hub keeps of its channel:
  'past-retention',
  // History of a channel whose access policy here does not allow it to be fetched:
  'history-not-allowed',
  'refused-by-rules',
] as const;
export const DropReasonSchema = z.enum(DROP_REASONS);
export type DropReason = z.output<typeof DropReasonSchema>;

/**
 * A gap in a channel's history on this hub, while it lasts: an author's
 * event held whose previous one is not (src/hub/history-gaps.ts). History
 * sync asks the linked hubs for what is missing.
 */
export const HistoryGapSchema = z.object({
  session: z.string(),
  channel: z.string(),
  /** Whose events are missing: the author's handle here, and the hub that hosts it (its name and key; null: not known). */
  author: z.string(),
  hub: z.string().nullable(),
  hubKey: PublicKeyTextSchema.nullable(),
  /** The highest sender_seq known missing (the one before an event held), how many holes there are, and when the first event after one was written (ISO 8601). */
  missingFrom: z.number().int().min(0),
  holes: z.number().int().min(1),
  before: z.string(),
});
export type HistoryGap = z.output<typeof HistoryGapSchema>;

export const PeerLinkInfoSchema = z.object({
  key: PublicKeyTextSchema,
  id: z.string(),
  /** Its name from its hello; empty until one was read. */
  name: z.string(),
  addrs: z.array(z.string()),
  state: LinkStateSchema,
  /** Why it was last refused or went offline, in words. */
  reason: z.string().nullable(),
  /** When a frame was last read from it (ISO 8601). */
  lastSeen: z.string().nullable(),
  /** Events waiting for it (the fan-out's backlog). */
  queued: z.number().int().min(0),
  /** How long the oldest of this hub's own events it has not acknowledged has waited, in seconds (0: none waits). */
  lagSeconds: z.number().int().min(0),
  drops: z.partialRecord(DropReasonSchema, z.number().int().min(0)),
  /** Added with `parley peer add` (kept in the home), or learned (a hello, an inbound link). */
  configured: z.boolean(),
  /** The participants it hosts, from its hello. */
  participants: z.array(z.object({ handle: z.string(), key: PublicKeyTextSchema, kind: ParticipantKindSchema })),
  /** Gaps in the history of its participants' events here, while they last (history sync asks for what is missing). */
  gaps: z.array(HistoryGapSchema),
  /** The roster in force marks it an archive: it keeps history longer, and is asked for it first. */
  archive: z.boolean(),
});
export type PeerLinkInfo = z.output<typeof PeerLinkInfoSchema>;

/**
 * A linked hub as every participant may see it (GET /api/v1/linked-hubs, the
 * page's "Linked hubs"): its name, the state of the link and what waits for
 * it or was dropped; its addresses and the reason in words are the
 * operator's (GET /api/v1/hub/peers).
 */
export type LinkedHubView = Pick<PeerLinkInfo, 'key' | 'id' | 'name' | 'state' | 'lastSeen' | 'queued' | 'lagSeconds' | 'drops' | 'gaps'>;

