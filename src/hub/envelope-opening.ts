// Opening an envelope signed elsewhere: what the gate does first with one,
// since its signature, not a credential, says who it is from.

import { parseInput, ParleyError } from '../errors/parley-error.js';
import { AuthoredMetaSchema, EventMetaSchema, type AuthoredMeta } from '../schema/event.js';
import { EnvelopeInputSchema, PeerEnvelopeInputSchema, SignedControlContentSchema, SignedRequestContentSchema, SignedResponseContentSchema, type SignedControlContent } from '../schema/inputs.js';
import type { z } from 'zod';

type SignedRequestContent = z.output<typeof SignedRequestContentSchema>;
type SignedResponseContent = z.output<typeof SignedResponseContentSchema>;
import { isUlid, UlidSchema } from '../schema/names.js';
import { textFault } from '../schema/text.js';
import { canonicalEncode } from '../trust/cbor.js';
import { decodeEventTuple, verifyEvent, type SignedEventFields } from '../trust/envelope.js';
import { cachedPublicKey, participantIdOf } from '../trust/node-id.js';
import { ed25519Verify } from '../trust/ed25519.mjs';
import type { Caller } from './records.js';
import type { HubContext } from './context.js';
import type { SignedElsewhere } from './event-draft.js';

/** What opening an envelope uses: the limits, the participants, and the drop counts. */
type OpeningContext = Pick<HubContext, 'config' | 'state' | 'envelopes'>;
import type { DropReason } from './envelope-gate.js';
import { rawKeyOf } from './participant-key.js';
import { assertTextSize } from './text-size.js';
import type { ParticipantRecord, SessionRecord } from './records.js';

/**
 * How an envelope arrives: `live`, handed in by its author as it is written,
 * within its TTL and never replayed; `sync`, from a linked hub, taken once by
 * id (its history whatever its age; what it sends as written, within its TTL:
 * DecodedEnvelope.live).
 */
export type EnvelopeMode = 'live' | 'sync';

/**
 * The kinds of event taken in as envelopes, each in its own form: messages
 * from anyone who signs one; requests, responses and the steering controls
 * that hold on every hub (pause, done, pin, mute, unmute) too from a linked
 * hub (sync), whose rules hold here as for one sent here (ingest-requests.ts,
 * ingest-controls.ts). A kind added here gets its form below and its taking
 * in ingest.ts.
 */
export const ENVELOPE_KINDS = ['message', 'request', 'response', 'control'] as const;
export type EnvelopeKind = (typeof ENVELOPE_KINDS)[number];
/** The kinds taken in as text (an author's POST /envelopes, Actor.ingest): the others come only from a linked hub's intake. */
const LIVE_KINDS: ReadonlySet<string> = new Set(['message']);

/** An envelope whose signature verified, by a participant of this hub, in a form this hub takes. */
export interface OpenedEnvelope {
  mode: EnvelopeMode;
  kind: EnvelopeKind;
  fields: SignedEventFields;
  /** The thread of this hub it goes to: the one it was signed for, or (from a linked hub) the one of the same name here. */
  thread: string;
  sig: Buffer;
  /** What its author wrote of the meta (reply_to, tags); the rest of a stored event's meta is the hub's. */
  meta: AuthoredMeta;
  /** From a linked hub, the side channel its meta links (a side channel's closing summary, in its parent). */
  link?: string;
  /** From a linked hub, the sender_seq of its author's previous event that crossed, in its thread and epoch (see history-gaps.ts). */
  prev?: number | null;
  /** A message's text, as it passes the rules of a post's text ('' for the other kinds). */
  text: string;
  /** A request's or a response's content, in the form the hub stores it. */
  request?: SignedRequestContent;
  response?: SignedResponseContent;
  control?: SignedControlContent;
}

/** Meta keys that say what a hub found or did; an author may not sign them (see AuthoredMetaSchema). */
const HUB_META_KEYS: ReadonlySet<string> = new Set(Object.keys(EventMetaSchema.shape).filter((key) => !(key in AuthoredMetaSchema.shape)));

/**
 * The caller an envelope proves, in the order of the checks on receipt, each refusal counted as
 * a drop: it decodes strictly, its signature verifies against its `from`
 * key, that key is a participant here (and the one who hands it in, when a
 * participant does), of the thread's session; it is a kind this hub takes
 * (ENVELOPE_KINDS), in that kind's form (a message's: a post's), within the
 * TTL this hub allows (live).
 */
export function envelopeCaller(ctx: OpeningContext, raw: unknown, mode: EnvelopeMode, handedInBy: Caller | undefined): { caller: Caller; envelope: OpenedEnvelope } {
  const gate = ctx.envelopes;
  const decoded = raw instanceof DecodedEnvelope ? raw : undefined;
  const { fields, sig, signedBytes, thread: into } = decoded ?? decodeInput(ctx, raw, mode);
  try {
    // Before anything quotes them: an ack, a reply and an export name the event and its thread by these ids.
    if (!isUlid(fields.id)) parseInput(UlidSchema, fields.id, 'envelope.id');
    if (!isUlid(fields.thread)) parseInput(UlidSchema, fields.thread, 'envelope.thread');
  } catch (error) {
    throw gate.drop('malformed', error as ParleyError);
  }
  // Decoded strictly (canonical CBOR), the bytes are the signed bytes: no need to encode them again.
  const verified = decoded?.signatureHolds || (signedBytes ? sig.length === 64 && ed25519Verify(signedBytes, cachedPublicKey(fields.from), sig) : verifyEvent(fields, sig));
  if (!verified) {
    throw gate.drop('badSignature', new ParleyError('BAD_SIGNATURE', `Envelope ${fields.id}: the signature does not verify against its from key; it was dropped.`, { field: 'sig' }));
  }
  // A linked hub's live event is within its TTL (the order on receipt: signature, then TTL); its history is taken by id whatever its age.
  if (decoded?.live) gate.inTime(fields.id, fields.ts, fields.ttl_secs);
  const author = participantOf(ctx, fields.from);
  if (!author) {
    throw gate.drop('notInRoster', new ParleyError('NOT_IN_ROSTER', `Envelope ${fields.id}: its author's key is not a participant of this hub; it was dropped.`, { field: 'envelope.from' }));
  }
  if (handedInBy && handedInBy.participant.id !== author.id) {
    throw gate.drop(
      'forbidden',
      new ParleyError('FORBIDDEN', `Envelope ${fields.id} is signed by @${author.handle}; only its author may hand it in (you are @${handedInBy.participant.handle}).`, { field: 'envelope.from' }),
    );
  }
  // The other kinds come only decoded by the peer intake, whose entry was chosen by kind (the access each needs).
  const fromPeer = mode === 'sync' && raw instanceof DecodedEnvelope;
  const kind = ENVELOPE_KINDS.find((taken) => taken === fields.kind && (fromPeer || LIVE_KINDS.has(taken)));
  if (kind === undefined) {
    const taken = fromPeer ? `this hub takes ${ENVELOPE_KINDS.join(', ')} from a linked hub` : 'only messages are taken in as signed envelopes handed in as text';
    throw gate.drop('malformed', new ParleyError('INVALID_INPUT', `Envelope ${fields.id} is a ${fields.kind}; ${taken}.`, { field: 'envelope.kind' }));
  }
  const thread = into ?? fields.thread;
  const session = handedInBy?.session ?? sessionOfThread(ctx, thread);
  if (!session?.members.has(author.id)) {
    throw gate.drop('forbidden', new ParleyError('NOT_FOUND', `Envelope ${fields.id}: no thread ${thread} in @${author.handle}'s session.`, { field: 'envelope.thread' }));
  }
  // A TTL is a rule of transit: history taken from a linked hub is past it, and is taken by id instead.
  if (mode === 'live' && fields.ttl_secs > ctx.config.trust.maxTtlSecs) {
    throw gate.drop(
      'malformed',
      new ParleyError('INVALID_INPUT', `Envelope ${fields.id}: ttl_secs ${fields.ttl_secs} is over the ${ctx.config.trust.maxTtlSecs} this hub accepts (trust.maxTtlSecs).`, { field: 'envelope.ttl_secs' }),
    );
  }
  let meta: AuthoredMeta;
  let content: Pick<OpenedEnvelope, 'text' | 'request' | 'response' | 'control'>;
  try {
    meta = fromPeer ? authoredPart(fields) : authoredMeta(fields);
    content =
      kind === 'message'
        ? { text: postText(ctx, fields) }
        : kind === 'request'
          ? { text: '', request: parseInput(SignedRequestContentSchema, fields.content, 'envelope.content') }
          : kind === 'response'
            ? { text: '', response: parseInput(SignedResponseContentSchema, fields.content, 'envelope.content') }
            : { text: '', control: parseInput(SignedControlContentSchema, fields.content, 'envelope.content') };
  } catch (error) {
    throw error instanceof ParleyError ? gate.drop('malformed', error) : error;
  }
  const link = fromPeer && typeof fields.meta?.link === 'string' ? { link: fields.meta.link } : {};
  const prev = decoded?.prev === undefined || decoded.prev === null ? {} : { prev: decoded.prev };
  return { caller: { participant: author, session }, envelope: { mode, kind, fields, thread, sig, meta, ...link, ...prev, ...content } };
}

/**
 * An envelope a linked hub sent, decoded once where its batch was read
 * (peer-intake.ts, with the same size limit): its canonical bytes, fields and
 * signature, and the thread of this hub it goes to.
 */
export class DecodedEnvelope {
  constructor(
    readonly signedBytes: Uint8Array,
    readonly fields: SignedEventFields,
    readonly sig: Buffer,
    readonly thread: string | undefined,
    /** Its signature was checked already and holds (a linked hub's page, checked off the main thread). */
    readonly signatureHolds = false,
    /** Sent by a linked hub as it was written (not history it catches up on): its TTL holds. */
    readonly live = false,
    /** The sender_seq of its author's previous event that crossed, in its thread and epoch, as the linked hub said it (null: not said). */
    readonly prev: number | null = null,
    /** History a linked hub served, whoever wrote it: its author is judged by the roster in force when it was written. */
    readonly asWritten = false,
  ) {}
}

/** An envelope handed in as text (base64url): parsed, size-checked and decoded, each refusal counted. */
function decodeInput(ctx: OpeningContext, raw: unknown, mode: EnvelopeMode): { fields: SignedEventFields; sig: Buffer; signedBytes: undefined; thread: string | undefined } {
  const gate = ctx.envelopes;
  const parsed = mode === 'sync' ? parseInput(PeerEnvelopeInputSchema, raw) : { ...parseInput(EnvelopeInputSchema, raw), thread: undefined };
  const bytes = Buffer.from(parsed.envelope, 'base64url');
  const max = ctx.config.trust.maxEnvelopeBytes;
  if (bytes.length > max) {
    throw gate.drop('malformed', new ParleyError('PAYLOAD_TOO_LARGE', `Invalid envelope: ${bytes.length} bytes, over the ${max} allowed (trust.maxEnvelopeBytes).`, { field: 'envelope' }));
  }
  try {
    return { fields: decodeEventTuple(bytes, { maxBytes: max }), sig: Buffer.from(parsed.sig, 'base64url'), signedBytes: undefined, thread: parsed.thread };
  } catch (error) {
    throw gate.drop('malformed', error instanceof ParleyError ? error : new ParleyError('INVALID_INPUT', 'Invalid envelope: it does not decode.', { field: 'envelope' }));
  }
}

/** What an envelope's author fixed (its id, counters, signature, and the thread id it signed), for the writer to keep as it is. */
export function sealedOf(envelope: OpenedEnvelope): SignedElsewhere {
  const { fields } = envelope;
  return { id: fields.id, ts: fields.ts, meta: fields.meta, ttl_secs: fields.ttl_secs, sender_seq: fields.sender_seq, sender_epoch: Buffer.from(fields.sender_epoch), sig: envelope.sig, thread: fields.thread, prev: envelope.prev ?? null };
}

/** Counts a refused envelope under `reason` and gives the error to throw (anything but a ParleyError is thrown as it is). */
export function dropped(ctx: Pick<HubContext, 'envelopes'>, reason: DropReason, error: unknown): unknown {
  return error instanceof ParleyError ? ctx.envelopes.drop(reason, error) : error;
}

/** The participant whose key this is, when it is one of this hub's. */
export function participantOf(ctx: Pick<HubContext, 'state'>, raw: Uint8Array): ParticipantRecord | undefined {
  const participant = ctx.state.participants.get(participantIdOf(raw));
  return participant && rawKeyOf(participant).equals(raw) ? participant : undefined;
}

/**
 * The envelope's meta, when its author wrote all of it: reply_to and tags, in
 * the form Parley stores (a tidied tag would be a change to what was signed).
 * Mentions and the flags are the receiving hub's to compute, never taken from an author.
 */
function authoredMeta(fields: SignedEventFields): AuthoredMeta {
  const signed = fields.meta ?? {};
  for (const key of Object.keys(signed)) {
    if (HUB_META_KEYS.has(key)) {
      throw new ParleyError(
        'INVALID_INPUT',
        `Envelope ${fields.id}: meta.${key} is set by the hub that stores a message (what it found in it or did to it), never by its author; sign the message without it.`,
        { field: `envelope.meta.${key}` },
      );
    }
  }
  const meta = parseInput(AuthoredMetaSchema, signed, 'envelope.meta');
  if (!sameValue(meta, signed)) {
    throw new ParleyError('INVALID_INPUT', `Envelope ${fields.id}: its meta is not in the form Parley stores (tags trimmed); sign it in that form.`, { field: 'envelope.meta' });
  }
  return meta;
}

/**
 * Of an event a linked hub sends, what its author wrote of the meta. The
 * meta it signed is the one its hub stored, with that hub's own keys
 * (mentions, the redaction flags, a link), which are not taken: this hub
 * finds its own mentions. What was signed is kept beside it all the same.
 */
function authoredPart(fields: SignedEventFields): AuthoredMeta {
  const signed = fields.meta ?? {};
  const authored = Object.fromEntries(Object.keys(AuthoredMetaSchema.shape).flatMap((key) => (signed[key] === undefined ? [] : [[key, signed[key]]])));
  // No reply_to and no tags (most events): nothing to parse.
  return Object.keys(authored).length === 0 ? {} : parseInput(AuthoredMetaSchema, authored, 'envelope.meta');
}

/** The envelope's text, when it passes the rules of a post's text (src/schema/text.ts); a signed text cannot be truncated either. */
function postText(ctx: Pick<HubContext, 'config'>, fields: SignedEventFields): string {
  const text = fields.content as string;
  const fault = textFault(text, 'lines');
  if (fault !== undefined) {
    throw new ParleyError('INVALID_INPUT', `Envelope ${fields.id}: its text ${fault}. A post's text rules hold for signed messages too; it was dropped.`, { field: 'envelope.content' });
  }
  assertTextSize(ctx, text, 'envelope.content');
  if (text.length > ctx.config.chat.limits.maxMessageChars) {
    throw new ParleyError('PAYLOAD_TOO_LARGE', `Envelope ${fields.id}: ${text.length} characters, over chat.limits.maxMessageChars; a signed message cannot be truncated.`, { field: 'envelope.content' });
  }
  return text;
}

/** The session of a thread, for an envelope handed in by no participant (a linked hub's). */
function sessionOfThread(ctx: Pick<HubContext, 'state'>, threadId: string): SessionRecord | undefined {
  const thread = ctx.state.threads.get(threadId);
  return thread ? ctx.state.sessions.get(thread.sessionId) : undefined;
}

/** Whether two JSON values are the same (key order aside). */
function sameValue(a: unknown, b: unknown): boolean {
  return Buffer.from(canonicalEncode(a)).equals(Buffer.from(canonicalEncode(b)));
}
