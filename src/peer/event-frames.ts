/**
 * The frames of `/parley/events/1`, the fan-out from one hub to another over
 * their link. The sending hub writes pages of its own participants' events,
 * each page saying the seq of its log it was read through; the receiving hub
 * answers each page, once what it stored of it is durable, with an ack of that
 * seq. Both are canonical CBOR tuples, length-prefixed, each at most
 * MAX_EVENTS_FRAME_BYTES.
 */

import { z } from 'zod';
import type { PeerEvent } from '../hub/index.js';
import { MAX_SIDE_DEPTH } from '../schema/limits.js';
import { canonicalEncode, decodeStrict } from '../trust/cbor.js';

export const EVENTS_PROTOCOL = '/parley/events/1';
const EVENTS_DOMAIN = 'parley/events/v1';
const ACK_DOMAIN = 'parley/ack/v1';
/** A page is at most this large (it always holds at least one event, which trust.maxEnvelopeBytes bounds). */
export const MAX_EVENTS_FRAME_BYTES = 8 * 1024 * 1024;
/** A page holds at most this many events. */
export const MAX_EVENTS_PER_FRAME = 512;

export interface EventsFrame {
  /** The seq of the sender's log this page was read through. */
  through: number;
  events: PeerEvent[];
  /** Sent as its events were written, each within its TTL (the receiver checks it); false: history the receiver catches up on. */
  live: boolean;
}

const Seq = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const Bytes = z.instanceof(Uint8Array);
const EventFields = [
  Bytes.refine((bytes) => bytes.length > 0, 'must not be empty'),
  Bytes.refine((sig) => sig.length === 64, 'must be a 64-byte signature'),
  z.string().min(1).max(200),
  z.string().min(1).max(200).nullable(),
  Bytes.refine((key) => key.length === 32, 'must be a 32-byte key').nullable(),
] as const;
/** A side channel on the way from the event's channel to its thread: its id on the sending hub, its title, its members' ids. */
const SideStep = z.tuple([z.string().regex(/^[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a thread id'), z.string().min(1).max(512), z.array(z.string().min(1).max(64)).max(256)]);
const Sides = z.array(SideStep).min(1).max(MAX_SIDE_DEPTH);
/**
 * An event in a side channel carries the side channels from its channel down
 * (outermost first); others leave it out, or give null when a prev follows:
 * the sender_seq of its author's previous event that crossed, in its thread
 * and epoch, as its author's hub said it (the receiver tells gaps by it).
 */
/** Every form an event takes in a frame (the checks by hand below are a shortcut to the common ones). */
export const EventTupleForms = z.union([z.tuple(EventFields), z.tuple([...EventFields, Sides]), z.tuple([...EventFields, Sides.nullable(), Seq.nullable()])]);
type EventTupleOutput = z.output<typeof EventTupleForms>;

const isBytes = (value: unknown, length?: number): value is Uint8Array => value instanceof Uint8Array && (length === undefined ? value.length > 0 : value.length === length);
const isName = (value: unknown): value is string => typeof value === 'string' && value.length >= 1 && value.length <= 200;
const isSeq = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;

/**
 * The forms nearly every event comes in (no side channel), checked by hand:
 * each case passes EventTupleForms too, which parses (or refuses, naming the
 * item) every other. Zod's union of tuples cost more than the rest of
 * reading a page.
 */
function isPlainEventTuple(value: unknown): value is EventTupleOutput {
  if (!Array.isArray(value) || (value.length !== 5 && !(value.length === 7 && value[5] === null && (value[6] === null || isSeq(value[6]))))) return false;
  const [bytes, sig, session, channel, dmWith] = value as unknown[];
  return isBytes(bytes) && isBytes(sig, 64) && isName(session) && (channel === null || isName(channel)) && (dmWith === null || isBytes(dmWith, 32));
}

export const EventTuple = z.union([z.custom<EventTupleOutput>(isPlainEventTuple), EventTupleForms]);
const EventsFields = [z.literal(EVENTS_DOMAIN), Seq, z.array(EventTuple).max(MAX_EVENTS_PER_FRAME)] as const;
/** A page that does not say whether it is live is history. */
const EventsTuple = z.union([z.tuple(EventsFields), z.tuple([...EventsFields, z.boolean()])]);
const AckTuple = z.tuple([z.literal(ACK_DOMAIN), Seq]);

/** Why a frame was refused: the stream is reset and the reason counted as a malformed frame. */
export class BadFrame extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BadFrame';
  }
}

/** An event as a frame carries it (EventTuple). */
export function tupleOfEvent(e: PeerEvent): unknown[] {
  const fields: unknown[] = [e.bytes, e.sig, e.session, e.channel, e.dmWith];
  const side = e.side && e.side.length > 0 ? e.side.map((step) => [step.id, step.title, step.members]) : null;
  if (e.prev !== undefined && e.prev !== null) fields.push(side, e.prev);
  else if (side) fields.push(side);
  return fields;
}

/** The event an EventTuple carries. */
export function eventOfTuple([bytes, sig, session, channel, dmWith, side, prev]: z.output<typeof EventTuple>): PeerEvent {
  return {
    bytes,
    sig,
    session,
    channel,
    dmWith,
    ...(side ? { side: side.map(([id, title, members]) => ({ id, title, members })) } : {}),
    ...(prev === undefined || prev === null ? {} : { prev }),
  };
}

export function encodeEvents(frame: EventsFrame): Uint8Array {
  return canonicalEncode([EVENTS_DOMAIN, frame.through, frame.events.map(tupleOfEvent), frame.live], 'events frame');
}

export function decodeEvents(bytes: Uint8Array): EventsFrame {
  const [, through, events, live] = parseFrame(EventsTuple, bytes, 'events frame');
  return { through, live: live === true, events: events.map(eventOfTuple) };
}

export function encodeAck(through: number): Uint8Array {
  return canonicalEncode([ACK_DOMAIN, through], 'ack');
}

export function decodeAck(bytes: Uint8Array): number {
  return parseFrame(AckTuple, bytes, 'ack')[1];
}

export function parseFrame<S extends z.ZodType>(schema: S, bytes: Uint8Array, what: string): z.output<S> {
  try {
    return schema.parse(decodeStrict(bytes, { maxBytes: MAX_EVENTS_FRAME_BYTES, what }));
  } catch (error) {
    const detail = error instanceof z.ZodError ? `${error.issues[0]?.path.join('.') || 'frame'}: ${error.issues[0]?.message ?? 'malformed'}` : (error as Error).message;
    throw new BadFrame(`bad ${what} (${detail})`);
  }
}
