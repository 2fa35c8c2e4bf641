export type { AckResult, ControlResult, HistoryResult, InboxItem, InboxReason, InboxResult, PostResult, Priority, ReadNewResult, RequestResult, ResponseResult, SentDelivery, SideClosed, SideOpened, WaitResult } from './answers.js';
// The hub's public module: everything above the hub (the HTTP API, the MCP
// server, the CLI, the coordinator, the library, the middleware and the agent
// loop) imports the hub from here and from nowhere else in src/hub, so what
// lies behind it can move without touching them. The lint rules enforce it.

export { openHub, Hub, DEFAULT_SESSION, type HubOptions, type Credential, type PeerLinksView, type PeerSelf, type PeerSync, type PeerEvent, type PeerTaken, type PreparedPage, type SideStep, type OutboundPage, type HostedElsewhere, type HostingHub, type PresenceGossip, type ChannelDigest, type HistoryAsk, type HistoryAuthor, type HistoryPage, type HistoryStream, type HistoryChannel, type HistoryGap, type RosterPushOptions, type SessionInfo } from './hub.js';
export { Actor } from './actor.js';
export type { ParticipantApi } from './participant-api.js';

// What an operation answers.

export type { OpenRequest } from './requests.js';

export type { ThreadInfo } from './threads.js';

export type { PresenceInfo } from './presence.js';
export type { LiveItem } from './live-bus.js';
export type { LiveSink, LiveSubscription } from './subscription.js';
export type { HearView, MeetingStatusView, MeetingView, HeardMessage } from './meeting-ops.js';
export type { ThreadPolicy } from './participation.js';

export type { ContextItem } from '../schema/views.js';

// Rules that entry points show before they ask (which tools to list, what a profile says).
export { accessNeeded, type Action } from './permissions.js';
export { chatOpenFor } from './chat-exclusion.js';
export { wakeOnFor } from './wake-on.js';
export { MIN_REQUEST_ID_ABBREVIATION } from './request-ref.js';

// What a home's store holds, read while no hub runs on it (parley doctor, the roster commands).
export { inspectStore, readStoredHome, storedRoster, storeFileOf, vacuumStore, type StoreFileStats, type StoreInspection, type StoredHome } from './offline-home.js';
