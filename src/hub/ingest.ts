import { parseInput, ParleyError } from '../errors/parley-error.js';
import { AuthoredMetaSchema, EventMetaSchema, type AuthoredMeta } from '../schema/event.js';
import { EnvelopeInputSchema, type EnvelopeInput } from '../schema/inputs.js';
import { UlidSchema } from '../schema/names.js';
import { textFault } from '../schema/text.js';
import { decodeEventTuple, verifyEvent, type SignedEventFields } from '../trust/envelope.js';
import { canonicalEncode } from '../trust/cbor.js';
import { participantIdOf } from '../trust/node-id.js';
import type { HubContext } from './context.js';
import type { DropReason } from './envelope-gate.js';
import { ensureSubscribed } from './threads.js';
import { assertMayPost, resolveFor, type Caller } from './caller.js';
import { assertCanSee, assertTextSize, messageDraft } from './posting.js';
import { assertMayWrite } from './channel-access.js';
import type { ParticipantRecord, SessionRecord, ThreadRecord } from './state.js';
import { transact, type EventDraft } from './writer.js';
import { rawKeyOf } from './participant-key.js';

export interface IngestResult {
  id: string;
  seq: number;
  thread: string;
}

/** Meta keys that say what a hub found or did; an author may not sign them (see AuthoredMetaSchema). */
const HUB_META_KEYS: ReadonlySet<string> = new Set(Object.keys(EventMetaSchema.shape).filter((key) => !(key in AuthoredMetaSchema.shape)));

/**
 * Takes in an event its author signed elsewhere. What it signed cannot
 * change, so it is refused (never altered) when the hub would have to change
 * it, and it passes the same rules as a post: its text those of post text, its
 * id and thread are ids of this hub (ULIDs), and of its meta only what an
 * author writes (reply_to, tags) is taken from it. Mentions are the hub's, and
 * it is shown at the hub's receipt time; the ts and meta it signed are kept
 * beside them for its signature. Checked in Meerkat's order before anything
 * is stored: the envelope decodes strictly, its signature verifies against
 * its `from` key, that key is a participant here (and in the roster in force),
 * TTL and replay (EnvelopeGate), then the rules of a post. Each drop is counted.
 *
 * Only messages are taken in so far; requests, responses and controls carry
 * state the hub keeps and come with the peer links.
 */
export async function ingestEnvelope(ctx: HubContext, handedInBy: Caller | undefined, input: EnvelopeInput): Promise<IngestResult> {
  const gate = ctx.envelopes;
  const parsed = parseInput(EnvelopeInputSchema, input);
  const bytes = Buffer.from(parsed.envelope, 'base64url');
  if (bytes.length > ctx.config.trust.maxEnvelopeBytes) {
    throw gate.drop(
      'malformed',
      new ParleyError('PAYLOAD_TOO_LARGE', `Invalid envelope: ${bytes.length} bytes, over the ${ctx.config.trust.maxEnvelopeBytes} allowed (trust.maxEnvelopeBytes).`, { field: 'envelope' }),
    );
  }
  let fields: SignedEventFields;
  try {
    fields = decodeEventTuple(bytes, { maxBytes: ctx.config.trust.maxEnvelopeBytes });
    // Before anything quotes them: an ack, a reply and an export name the event and its thread by these ids.
    parseInput(UlidSchema, fields.id, 'envelope.id');
    parseInput(UlidSchema, fields.thread, 'envelope.thread');
  } catch (error) {
    throw gate.drop('malformed', error instanceof ParleyError ? error : new ParleyError('INVALID_INPUT', 'Invalid envelope: it does not decode.', { field: 'envelope' }));
  }
  if (!verifyEvent(fields, Buffer.from(parsed.sig, 'base64url'))) {
    throw gate.drop('badSignature', new ParleyError('BAD_SIGNATURE', `Envelope ${fields.id}: the signature does not verify against its from key; it was dropped.`, { field: 'sig' }));
  }
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
  if (fields.kind !== 'message') {
    throw gate.drop('malformed', new ParleyError('INVALID_INPUT', `Envelope ${fields.id} is a ${fields.kind}; only messages are taken in as signed envelopes.`, { field: 'envelope.kind' }));
  }
  const session = ctx.state.sessions.get(handedInBy?.session.id ?? '') ?? sessionOfThread(ctx, fields.thread);
  if (!session?.members.has(author.id)) {
    throw gate.drop('forbidden', new ParleyError('NOT_FOUND', `Envelope ${fields.id}: no thread ${fields.thread} in @${author.handle}'s session.`, { field: 'envelope.thread' }));
  }
  const caller: Caller = { participant: author, session };
  let thread: ThreadRecord;
  let to: ParticipantRecord | undefined;
  try {
    // As a post: only a thread the author can see (a DM of others stays closed), and an addressee of its session.
    thread = resolveFor(ctx, caller, fields.thread, 'envelope.thread');
    // The signature is over the thread's id: a thread named any other way would be stored under an id that was not signed.
    if (thread.id !== fields.thread) throw new ParleyError('NOT_FOUND', `Envelope ${fields.id}: no thread with id ${fields.thread} in @${author.handle}'s session.`, { field: 'envelope.thread' });
    if (fields.to !== null) {
      const addressee = participantOf(ctx, fields.to);
      to = addressee && session.members.has(addressee.id) ? addressee : undefined;
      if (!to) throw new ParleyError('NOT_FOUND', `Envelope ${fields.id}: it is addressed to a key that is not a participant of this session.`, { field: 'envelope.to' });
      assertCanSee(thread, to.id, 'envelope.to');
    }
  } catch (error) {
    throw dropped(gate, 'forbidden', error);
  }
  try {
    ctx.access.require(author, 'post', 'a message envelope');
    assertMayPost(caller, thread, 'envelope.thread');
    assertMayWrite(ctx, caller, thread);
  } catch (error) {
    throw dropped(gate, error instanceof ParleyError && error.code === 'NOT_IN_ROSTER' ? 'notInRoster' : 'forbidden', error);
  }
  if (fields.ttl_secs > ctx.config.trust.maxTtlSecs) {
    throw gate.drop(
      'malformed',
      new ParleyError('INVALID_INPUT', `Envelope ${fields.id}: ttl_secs ${fields.ttl_secs} is over the ${ctx.config.trust.maxTtlSecs} this hub accepts (trust.maxTtlSecs).`, { field: 'envelope.ttl_secs' }),
    );
  }
  let meta: AuthoredMeta;
  let text: string;
  try {
    meta = authoredMeta(fields);
    text = postText(ctx, fields);
  } catch (error) {
    throw dropped(gate, 'malformed', error);
  }
  const secrets = await ctx.redactor.find([text, ...(meta.tags ?? [])]);
  const secretAt = secrets.spans.findIndex((spans) => spans.length > 0);
  if (secretAt >= 0) {
    const field = secretAt === 0 ? 'envelope.content' : `envelope.meta.tags.${secretAt - 1}`;
    throw gate.drop('malformed', new ParleyError('INVALID_INPUT', `Envelope ${fields.id}: its ${field.slice('envelope.'.length)} holds a secret, and a signed message cannot be redacted; it was dropped.`, { field }));
  }
  let draft: EventDraft;
  try {
    // After the (async) scan, as a post's rules are: steering, the addressee, reply_to, and the hub's own mentions.
    ({ draft } = messageDraft(ctx, caller, thread, {
      text,
      truncated: false,
      redacted: false,
      to: to?.handle,
      replyTo: meta.reply_to,
      tags: meta.tags,
      fields: { to: 'envelope.to', replyTo: 'envelope.meta.reply_to', thread: 'envelope.thread' },
    }));
  } catch (error) {
    throw dropped(gate, 'malformed', error);
  }
  ctx.rateLimiter.take(author.id, author.handle);
  // After every other check, so that an envelope refused for its content does not use up its id: fixed, it may come again.
  gate.admit(fields.id, fields.ts, fields.ttl_secs);
  if (ctx.store.events.byId(fields.id)) {
    throw gate.drop('duplicate', new ParleyError('ENVELOPE_REJECTED', `Envelope ${fields.id} is already stored (a replay); it was dropped.`, { field: 'envelope.id' }));
  }
  // sender_seq only grows per author, thread and epoch: a number given again is a replay of another event.
  const lastSeq = ctx.store.events.lastSenderSeq(author.id, thread.id, Buffer.from(fields.sender_epoch));
  if (lastSeq !== undefined && fields.sender_seq <= lastSeq) {
    throw gate.drop(
      'duplicate',
      new ParleyError('ENVELOPE_REJECTED', `Envelope ${fields.id}: sender_seq ${fields.sender_seq} is not after ${lastSeq}, already used in this epoch; it was dropped.`, { field: 'envelope.sender_seq' }),
    );
  }
  const event = await transact(ctx, (tx) => {
    ensureSubscribed(ctx, thread, author.id);
    return tx.append({
      ...draft,
      sealed: {
        id: fields.id,
        ts: fields.ts,
        meta: fields.meta,
        ttl_secs: fields.ttl_secs,
        sender_seq: fields.sender_seq,
        sender_epoch: Buffer.from(fields.sender_epoch),
        sig: Buffer.from(parsed.sig, 'base64url'),
      },
    });
  });
  gate.accepted();
  return { id: event.id, seq: event.seq, thread: thread.id };
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

/** The envelope's text, when it passes the rules of a post's text (src/schema/text.ts); a signed text cannot be truncated either. */
function postText(ctx: HubContext, fields: SignedEventFields): string {
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

/** Counts a refused envelope under `reason` and gives the error to throw (anything but a ParleyError is thrown as it is). */
function dropped(gate: HubContext['envelopes'], reason: DropReason, error: unknown): unknown {
  return error instanceof ParleyError ? gate.drop(reason, error) : error;
}

/** The session of a thread, for an envelope handed in without a caller (the library, later the peer links). */
function sessionOfThread(ctx: HubContext, threadId: string): SessionRecord | undefined {
  const thread = ctx.state.threads.get(threadId);
  return thread ? ctx.state.sessions.get(thread.sessionId) : undefined;
}

/** Whether two JSON values are the same (key order aside). */
function sameValue(a: unknown, b: unknown): boolean {
  return Buffer.from(canonicalEncode(a)).equals(Buffer.from(canonicalEncode(b)));
}

function participantOf(ctx: HubContext, raw: Uint8Array): ParticipantRecord | undefined {
  const participant = ctx.state.participants.get(participantIdOf(raw));
  return participant && rawKeyOf(participant).equals(raw) ? participant : undefined;
}
