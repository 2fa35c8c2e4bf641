/**
 * The shapes the page gets from the hub's REST API, from the hub's own
 * schema folder (events, profiles, the response views); only what the page
 * alone uses is declared here.
 */
export type { ParleyEvent, RequestStatus } from '../../src/schema/event.js';
export type { Participant, Profile } from '../../src/schema/participant.js';
export type { PresenceState } from '../../src/schema/inputs.js';
export type { LinkedHubView } from '../../src/schema/peer-link.js';
export type {
  HeardMessage as MeetingMessage,
  MeetingSummary,
  OpenRequest,
  PresenceConnection,
  PresenceInfo,
  RingView as MeetingRing,
  ThreadDetail,
  ThreadInfo,
} from '../../src/schema/views.js';
import type { Participant } from '../../src/schema/participant.js';
import type { Access } from '../../src/schema/access.js';
import type { TrustMode } from '../../src/schema/views.js';

export interface Me {
  participant: Participant;
  session: { id: string; name: string };
  hub?: { chat: boolean; maxMessageChars: number; maxInputChars: number };
  /** The caller's permission role (null: a roster is in force and its key is not in it); absent from hubs before roles. */
  access?: Access | null;
  /** Local mode, or the roster in force. */
  trust?: TrustMode;
  /** The newest committed seq when whoami answered (where a stream without a thread list starts). */
  head?: number;
}

export interface SessionInfo {
  id: string;
  name: string;
  participants: number;
}

/** A `meeting` frame of the live stream (the ring's message as the hub keeps it: `ts` in epoch ms). */
export interface MeetingFrame {
  meeting: string;
  action: 'said' | 'joined' | 'left';
  participant: string;
  message?: { number: number; speaker: string; content: string; ts: number };
}

/** One recipient's delivery of something the human sent (GET /deliveries/sent). */
export interface SentDelivery {
  id: string;
  seq: number;
  to: string;
  reason: string;
  /** expired: a participant of another hub whose hub was not reached within the TTL. */
  state: 'pending' | 'delivered' | 'injected' | 'acknowledged' | 'expired';
  delivered_at?: string;
  expired_at?: string;
  injected_at?: string;
  acknowledged_at?: string;
}
