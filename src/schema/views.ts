import type { Access } from './access.js';
import type { SignedChannelPolicy } from './control.js';
import type { PresenceState } from './inputs.js';
import type { Profile } from './participant.js';

/**
 * What the hub answers with: the views of threads, requests, presence and
 * meetings that the API returns. They are plain types with no runtime
 * dependency, so the hub, its clients and the web page share one definition.
 */
export type ThreadKind = 'channel' | 'dm' | 'side';
export type Subscription = 'subscribed' | 'muted' | 'unsubscribed';

export interface ThreadInfo {
  id: string;
  kind: ThreadKind;
  name: string;
  parent?: string;
  closed: boolean;
  paused: boolean;
  done: boolean;
  members: number;
  subscription?: Subscription;
  unread?: number;
  /** A DM's other participant, as the viewer sees it: DMs are shown by that handle. */
  with?: string;
  /** The linked hub hosting that participant, when it is not this one. */
  withHub?: string;
}

/** One member of a thread as the steering panel shows them (by handle). */
export interface ThreadMemberView {
  handle: string;
  kind: Profile['kind'];
  subscription: Subscription;
  invited: boolean;
  hardMuted: boolean;
  mutedBy?: string;
}

/** A thread's steering state with who set each control, and its members. */
export interface ThreadDetail {
  thread: ThreadInfo;
  controls: {
    paused: boolean;
    pausedBy?: string;
    done: boolean;
    doneBy?: string;
    ttlSeconds?: number;
    expiresAt?: string;
    discussion: { on: boolean; allowAgentMentions: boolean; by?: string };
    invitedAuto: boolean;
    invitedAutoBy?: string;
    /** Kept whole by retention. */
    pinned: boolean;
    pinnedBy?: string;
    closed: boolean;
    summary?: string;
  };
  members: ThreadMemberView[];
  /** The newest seq of the thread the caller has read (their hub-kept cursor). */
  readUpTo: number;
  /** The channel access policy in force (a side channel's is its parent channel's); absent: the role table alone decides. */
  access?: ChannelAccessView;
}

/** A channel access policy as the thread view shows it: the signed policy, the channel it belongs to, and the handles of the keys it names. */
export interface ChannelAccessView extends SignedChannelPolicy {
  /** The channel whose policy this is (the thread itself, or a side channel's parent). */
  channel: string;
  /** Handles of the participants whose keys the policy names (and of its signer), by key. */
  handles: Record<string, string>;
}

export interface OpenRequest {
  request_id: string;
  intent: string;
  /** What is asked, as the request's author wrote it (absent when they gave only an intent). */
  text?: string;
  /** The request's structured parameters (`{}` when none were given). */
  params: unknown;
  from: string;
  to: string;
  thread: string;
  hop: number;
  status: 'open' | 'Accepted';
  seq: number;
  reply_to?: string;
}

/** Whether a participant holds a live connection: an MCP session or live stream (connected), a wait in progress (waiting), or none. */
export type PresenceConnection = 'connected' | 'waiting' | 'offline';

export interface PresenceInfo {
  participant: string;
  handle: string;
  /** What the participant declared (listening unless it said otherwise); offline without a live connection. */
  state: PresenceState;
  connection: PresenceConnection;
  seq: number;
  /** ISO time of the last sign of life. */
  lastSeen: string;
  thread?: string;
  note?: string;
  /** The profile travels in presence details. */
  details: { profile: Profile };
  /** The name of the linked hub that hosts the participant; absent: this hub hosts it. */
  hub?: string;
}

export interface MeetingView {
  id: string;
  name: string;
  who: Array<{ handle: string; role: string | null; joinedAt: string }>;
}

export interface HeardMessage {
  number: number;
  speaker: string;
  ts: string;
  content: string;
}

/** What `hear` returns: others' lines oldest first, whether unheard ones were dropped, and the number now heard up to. */
export interface HearView {
  messages: HeardMessage[];
  messages_lost: boolean;
  last_heard: number;
}

/** The whole retained ring for a person reviewing the room (own lines included); `dropped` counts messages the ring has overwritten. */
export interface RingView extends MeetingView {
  oldest: number;
  latest: number;
  dropped: number;
  messages: HeardMessage[];
}

/** A meeting at a glance for one participant: `unread` counts others' lines after `last_heard`. */
export interface MeetingStatusView {
  /** Members currently joined. */
  active: number;
  /** Oldest and newest line numbers kept; 0 when nothing was said. */
  oldest: number;
  latest: number;
  unread: number;
  /** Where `unread` was counted from: the number given, else the line the hub kept for the participant. */
  last_heard: number;
}

export interface MeetingSummary {
  id: string;
  name: string;
  active: number;
  latest: number;
}

/** How permissions are decided, as whoami, the participants list, doctor and status show it. */
export type TrustMode =
  | { mode: 'local'; localAccess: { human: Access; agent: Access } }
  | { mode: 'roster'; org: string; version: number; members?: number };

/** One item a client hook or the LLM middleware puts into an agent's context: a new waking inbox item, compact. */
export interface ContextItem {
  id: string;
  seq: number;
  ts: string;
  priority: 'high' | 'normal';
  reason: string;
  /** Thread name; `with` is a DM's other participant. */
  thread: string;
  with?: string;
  from: string;
  /** Present for events other than messages. */
  type?: string;
  /** A message's text, or another event's content as JSON. */
  text: string;
  /** Set when the agent is expected to respond. */
  respond?: true;
}
