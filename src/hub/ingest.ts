import { parseInput, ParleyError } from '../errors/parley-error.js';
import { EventMetaSchema, TO_ALL } from '../schema/event.js';
import { EnvelopeInputSchema, type EnvelopeInput } from '../schema/inputs.js';
import { decodeEventTuple, verifyEvent, type SignedEventFields } from '../trust/envelope.js';
import { canonicalEncode } from '../trust/cbor.js';
import { participantIdOf } from '../trust/node-id.js';
import type { HubContext } from './context.js';
import { ensureSubscribed } from './threads.js';
import { assertMayPost, resolveFor, type Seat } from './seat.js';
import { assertCanSee } from './posting.js';
import { assertMayWrite } from './channel-access.js';
import type { ParticipantRecord, SessionRecord, ThreadRecord } from './state.js';
import { transact } from './writer.js';
import { rawKeyOf } from './participant-key.js';

export interface IngestResult {
  id: string;
  seq: number;
  thread: string;
}

/**
 * Takes in an event its author signed elsewhere, as it is: id, time, counters
 * and signature are the author's, and nothing in it may change, so it is
 * refused (never altered) when the hub would have to change it. Checked in
 * Meerkat's order before anything is stored: the envelope decodes strictly,
 * its signature verifies against its `from` key, that key is a participant
 * here (and in the roster in force), TTL and replay (EnvelopeGate), then the
 * same role, steering and channel rules as a post. Each drop is counted.
 *
 * Only messages are taken in so far; requests, responses and controls carry
 * state the hub keeps and come with the peer links.
 */
export async function ingestEnvelope(ctx: HubContext, caller: Seat | undefined, input: EnvelopeInput): Promise<IngestResult> {
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
  if (caller && caller.participant.id !== author.id) {
    throw gate.drop(
      'forbidden',
      new ParleyError('FORBIDDEN', `Envelope ${fields.id} is signed by @${author.handle}; only its author may hand it in (you are @${caller.participant.handle}).`, { field: 'envelope.from' }),
    );
  }
  if (fields.kind !== 'message') {
    throw gate.drop('malformed', new ParleyError('INVALID_INPUT', `Envelope ${fields.id} is a ${fields.kind}; only messages are taken in as signed envelopes.`, { field: 'envelope.kind' }));
  }
  const session = ctx.state.sessions.get(caller?.session.id ?? '') ?? sessionOfThread(ctx, fields.thread);
  if (!session?.members.has(author.id)) {
    throw gate.drop('forbidden', new ParleyError('NOT_FOUND', `Envelope ${fields.id}: no thread ${fields.thread} in @${author.handle}'s session.`, { field: 'envelope.thread' }));
  }
  const seat: Seat = { participant: author, session };
  let thread: ThreadRecord;
  let to: ParticipantRecord | undefined;
  try {
    // As a post: only a thread the author can see (a DM of others stays closed), and an addressee of its session.
    thread = resolveFor(ctx, seat, fields.thread, 'envelope.thread');
    if (fields.to !== null) {
      const addressee = participantOf(ctx, fields.to);
      to = addressee && session.members.has(addressee.id) ? addressee : undefined;
      if (!to) throw new ParleyError('NOT_FOUND', `Envelope ${fields.id}: it is addressed to a key that is not a participant of this session.`, { field: 'envelope.to' });
      assertCanSee(thread, to.id, 'envelope.to');
    }
  } catch (error) {
    if (!(error instanceof ParleyError)) throw error;
    throw gate.drop('forbidden', error);
  }
  try {
    ctx.access.require(author, 'post', 'a message envelope');
    assertMayPost(seat, thread, 'envelope.thread');
    assertMayWrite(ctx, seat, thread);
  } catch (error) {
    if (!(error instanceof ParleyError)) throw error;
    throw gate.drop(error.code === 'NOT_IN_ROSTER' ? 'notInRoster' : 'forbidden', error);
  }
  const meta = EventMetaSchema.safeParse(fields.meta ?? {});
  // Stored exactly as signed: meta Parley would tidy (trimmed tags…) would no longer verify, so it is refused instead.
  if (!meta.success || !sameValue(meta.data, fields.meta ?? {})) {
    const reason = meta.success ? 'it is not in the form Parley stores' : (meta.error.issues[0]?.message ?? 'invalid');
    throw gate.drop('malformed', new ParleyError('INVALID_INPUT', `Envelope ${fields.id}: its meta is not Parley's (${reason}).`, { field: 'envelope.meta' }));
  }
  if (fields.ttl_secs > ctx.config.trust.maxTtlSecs) {
    throw gate.drop(
      'malformed',
      new ParleyError('INVALID_INPUT', `Envelope ${fields.id}: ttl_secs ${fields.ttl_secs} is over the ${ctx.config.trust.maxTtlSecs} this hub accepts (trust.maxTtlSecs).`, { field: 'envelope.ttl_secs' }),
    );
  }
  const text = fields.content as string;
  if (text.length > ctx.config.chat.limits.maxMessageChars) {
    throw gate.drop('malformed', new ParleyError('PAYLOAD_TOO_LARGE', `Envelope ${fields.id}: ${text.length} characters, over chat.limits.maxMessageChars; a signed message cannot be truncated.`, { field: 'envelope.content' }));
  }
  const secrets = await ctx.redactor.find([text]);
  if ((secrets.spans[0]?.length ?? 0) > 0) {
    throw gate.drop('malformed', new ParleyError('INVALID_INPUT', `Envelope ${fields.id}: its text holds a secret, and a signed message cannot be redacted; it was dropped.`, { field: 'envelope.content' }));
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
      thread,
      type: 'message',
      from: author.id,
      to: to?.id ?? TO_ALL,
      content: text,
      meta: meta.data,
      targets: [
        ...(thread.kind === 'dm' ? [...thread.members.keys()].map((id) => ({ participantId: id, reason: 'dm' as const })) : []),
        ...(to ? [{ participantId: to.id, reason: 'direct' as const }] : []),
        ...(meta.data.mentions ?? []).filter((id) => session.members.has(id)).map((id) => ({ participantId: id, reason: 'mention' as const })),
      ],
      sealed: { id: fields.id, ts: fields.ts, ttl_secs: fields.ttl_secs, sender_seq: fields.sender_seq, sender_epoch: Buffer.from(fields.sender_epoch), sig: Buffer.from(parsed.sig, 'base64url') },
    });
  });
  gate.accepted();
  return { id: event.id, seq: event.seq, thread: thread.id };
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
