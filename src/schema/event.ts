import { z } from 'zod';
import { SeqSchema, TagSchema, UlidSchema } from './names.js';

/**
 * One immutable entry of a thread's append-only log. `seq` is the hub's global,
 * strictly increasing number; `id` is a ULID that stays the same wherever the
 * event travels. `from` and `to` are participant ids; `author` is the handle of
 * `from` when the event was written.
 */
export const EVENT_TYPES = ['message', 'control', 'presence', 'request', 'response', 'task', 'result', 'system'] as const;
export const EventTypeSchema = z.enum(EVENT_TYPES);
/** The event types a hub sends its linked hubs (its own participants' only). */
export const CROSSING_EVENT_TYPES: ReadonlySet<string> = new Set(['message', 'request', 'response', 'control']);
export type EventType = z.infer<typeof EventTypeSchema>;

export const TO_ALL = 'all';

export const EventMetaSchema = z.strictObject({
  reply_to: UlidSchema.optional(),
  tags: z.array(TagSchema).max(16).optional(),
  /** Participant ids @mentioned in a message (computed by the hub). */
  mentions: z.array(z.string()).optional(),
  truncated: z.boolean().optional(),
  redacted: z.boolean().optional(),
  /** A thread this event links to (side channel opened or closed). */
  link: z.string().optional(),
});
export type EventMeta = z.infer<typeof EventMetaSchema>;

/**
 * The meta an author writes: what it replies to, and its tags. The rest of
 * EventMeta says what a hub found or did (mentions, truncated, redacted, link)
 * and is only ever set by the hub that stores the event.
 */
export const AuthoredMetaSchema = EventMetaSchema.pick({ reply_to: true, tags: true });
export type AuthoredMeta = z.infer<typeof AuthoredMetaSchema>;

export const REQUEST_STATUSES = ['Accepted', 'Rejected', 'Completed', 'Failed'] as const;
export const RequestStatusSchema = z.enum(REQUEST_STATUSES);
export type RequestStatus = z.infer<typeof RequestStatusSchema>;
/** Statuses after which a request is no longer open. */
export const TERMINAL_STATUSES: ReadonlySet<RequestStatus> = new Set(['Rejected', 'Completed', 'Failed']);

export interface RequestContent {
  request_id: string;
  intent: string;
  params: unknown;
  reply_to?: string;
  hop: number;
  text?: string;
}

export interface ResponseContent {
  request_id: string;
  status: RequestStatus;
  result?: unknown;
  text?: string;
}

export type SystemAction = 'thread.created' | 'thread.renamed' | 'thread.closed' | 'side.opened' | 'side.closed';

export interface SystemContent {
  action: SystemAction;
  [key: string]: unknown;
}

export interface ParleyEvent {
  seq: number;
  id: string;
  ts: string;
  session: string;
  thread: string;
  type: EventType;
  from: string;
  author: string;
  to: string;
  /** A string for messages; an object for controls, requests, responses and system events. */
  content: unknown;
  meta?: EventMeta;
}

export const ParleyEventSchema = z.strictObject({
  seq: SeqSchema,
  id: UlidSchema,
  ts: z.string(),
  session: z.string(),
  thread: z.string(),
  type: EventTypeSchema,
  from: z.string(),
  author: z.string(),
  to: z.string(),
  content: z.unknown(),
  meta: EventMetaSchema.optional(),
});
