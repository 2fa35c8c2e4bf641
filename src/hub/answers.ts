// What the participant API answers with (participant-api.ts): plain shapes,
// below the operations that make them, so the interface and its
// implementations (the Actor here, the REST client) depend on them alone.

import type { ControlKind } from '../schema/control.js';
import type { DeliveryState, SentDeliveryState } from '../schema/delivery.js';
import type { ParleyEvent, RequestStatus } from '../schema/event.js';
import type { ContextItem, ThreadInfo, ThreadKind } from '../schema/views.js';
import type { DeliveryReason } from './delivery-reason.js';

export interface PostResult {
  id: string;
  seq: number;
  thread: string;
  ts: string;
  truncated: boolean;
  redacted: boolean;
  /** Handles of the participants the message @mentions. */
  mentions: string[];
}

/** An envelope taken in: the stored event. */
export interface IngestResult {
  id: string;
  seq: number;
  thread: string;
  /** Already held (sync): the same event, taken once. */
  duplicate?: true;
}

export interface SideOpened extends ThreadInfo {
  /** The event in the parent thread that links to the side channel. */
  link_event: string;
}

export interface SideClosed {
  thread: string;
  parent: string;
  /** The summary message posted into the parent, linking back to the side channel. */
  summary_event: string;
  summary_seq: number;
  redacted: boolean;
  truncated: boolean;
}

/** A read of a thread from the hub-kept cursor. */
export interface ReadNewResult {
  events: ParleyEvent[];
  /** The cursor after this read: the highest seq examined (or the old cursor when nothing was new). */
  newPointer: number;
  more: boolean;
}

/** A page of a thread's log. */
export interface HistoryResult {
  events: ParleyEvent[];
  /** More events exist beyond this page (older when paging backwards, newer when forwards). */
  more: boolean;
}

/** An inbox item's priority: High (targeted), Normal (subscribed threads), Low (muted threads). */
export type Priority = 'high' | 'normal' | 'low';

/** Why an item is in the inbox: why it targets the reader, or the thread it came by. */
export type InboxReason = DeliveryReason | 'channel' | 'muted';

/** One item of a participant's inbox, newest unread first by priority (see inbox.ts). */
export interface InboxItem {
  priority: Priority;
  reason: InboxReason;
  /** Whether this item wakes a waiting participant (Low items never do). */
  wakes: boolean;
  /** Whether the reader is expected to respond (participation policy). */
  respondHint: boolean;
  /** Delivery state, for targeted (High) items. */
  delivery?: DeliveryState;
  /** `with`: a DM's other participant, by whom DMs are shown. */
  thread: { id: string; name: string; kind: ThreadKind; with?: string };
  event: ParleyEvent;
}

export interface InboxResult {
  items: InboxItem[];
  /** More items are waiting beyond the limit. */
  more: boolean;
}

/** A wait's answer: the inbox as it woke it, or nothing after the timeout. */
export interface WaitResult extends InboxResult {
  timedOut: boolean;
}

export interface AckResult {
  acknowledged: number;
  /** Ids that were not targeted at the caller (nothing to acknowledge). */
  not_targeted: string[];
}

/** The waking items put into an agent's context by one call (see context-items.ts). */
export interface InjectResult {
  items: ContextItem[];
  /** More items are waiting beyond this answer (the next call gets them). */
  more?: true;
  /** How many waking items wait beyond this answer (counted up to the inbox's largest page; `atLeast` past it). */
  waiting?: { count: number; atLeast?: true };
  /** The last event this answer considered. */
  head: number;
}

/** A targeted item's delivery state (pending → delivered → injected → acknowledged), with when each was reached. */
export interface DeliveryTimes {
  state: DeliveryState;
  /** ISO times each state was reached; absent until it is. */
  delivered_at?: string;
  injected_at?: string;
  acknowledged_at?: string;
}

export interface ReceivedDelivery extends DeliveryTimes {
  reason: string;
  event: ParleyEvent;
}

/** One recipient's delivery of what the caller sent. */
export interface SentDelivery extends Omit<DeliveryTimes, 'state'> {
  /** `expired`: its recipient's hub was not reached within its TTL (it is not sent after). */
  state: SentDeliveryState;
  expired_at?: string;
  /** The sent event. */
  id: string;
  seq: number;
  thread: { id: string; name: string; kind: ThreadKind; with?: string };
  /** The recipient's handle. */
  to: string;
  reason: string;
}

export interface ControlResult {
  id: string;
  seq: number;
  thread: string;
  control: ControlKind;
}

export interface RequestResult {
  request_id: string;
  id: string;
  seq: number;
  thread: string;
  hop: number;
}

export interface ResponseResult {
  request_id: string;
  id: string;
  seq: number;
  thread: string;
  status: RequestStatus;
}
