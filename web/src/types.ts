/**
 * The shapes the page gets from the hub's REST API. Events, profiles and the
 * enumerations come from the hub's own schemas; the response views below are
 * the routes' answers as the OpenAPI document lists them.
 */
export type { ParleyEvent, RequestStatus } from '../../src/schema/event.js';
export type { Participant, Profile } from '../../src/schema/participant.js';
export type { PresenceState } from '../../src/schema/inputs.js';
import type { Participant, Profile } from '../../src/schema/participant.js';
import type { PresenceState } from '../../src/schema/inputs.js';

export interface Me {
  participant: Participant;
  session: { id: string; name: string };
  hub?: { chat: boolean; maxMessageChars: number; maxInputChars: number };
}

export interface ThreadInfo {
  id: string;
  kind: 'channel' | 'dm' | 'side';
  name: string;
  parent?: string;
  closed: boolean;
  paused: boolean;
  done: boolean;
  members: number;
  subscription?: 'subscribed' | 'muted' | 'unsubscribed';
  unread?: number;
}

export interface ThreadDetail {
  thread: ThreadInfo;
  controls: {
    paused: boolean;
    pausedBy?: string;
    done: boolean;
    doneBy?: string;
    discussion: { on: boolean; allowAgentMentions: boolean; by?: string };
    invitedAuto: boolean;
    invitedAutoBy?: string;
    closed: boolean;
    summary?: string;
  };
  members: Array<{ handle: string; kind: string; subscription: string; invited: boolean; hardMuted: boolean; mutedBy?: string }>;
  readUpTo: number;
}

export interface PresenceInfo {
  participant: string;
  handle: string;
  state: PresenceState;
  lastSeen: string;
  thread?: string;
  note?: string;
  details: { profile: Profile };
}

export interface OpenRequest {
  request_id: string;
  intent: string;
  from: string;
  to: string;
  thread: string;
  hop: number;
  status: 'open' | 'Accepted';
  seq: number;
}

export interface SessionInfo {
  id: string;
  name: string;
  participants: number;
  joined: boolean;
}

export interface MeetingSummary {
  id: string;
  name: string;
  active: number;
  latest: number;
}

export interface MeetingMessage {
  number: number;
  speaker: string;
  ts: string;
  content: string;
}

export interface MeetingRing {
  name: string;
  who: Array<{ handle: string; role: string | null; joinedAt: string }>;
  oldest: number;
  latest: number;
  dropped: number;
  messages: MeetingMessage[];
}

/** A `meeting` frame of the live stream. */
export interface MeetingFrame {
  meeting: string;
  action: 'said' | 'joined' | 'left';
  participant: string;
  message?: { number: number; speakerHandle?: string; speaker?: string; content: string; ts: number | string };
}
