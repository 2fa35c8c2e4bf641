import { ParleyError } from '../errors/parley-error.js';
import type { HubContext } from './context.js';
import { dropped, participantOf, type OpenedEnvelope } from './envelope-opening.js';
import { current, type Admitted } from './gate.js';
import { assertCanSee, messageDraft } from './posting.js';
import { assertMayPost } from './caller.js';
import type { ParticipantRecord, ThreadRecord } from './state.js';
import { ensureSubscribed } from './threads.js';
import { transact, type EventDraft } from './writer.js';

export interface IngestResult {
  id: string;
  seq: number;
  thread: string;
  /** Already held (sync): the same event, taken once. */
  duplicate?: true;
}

/**
 * Takes in an event its author signed elsewhere, once the gate opened it (its
 * signature, author, form and thread: see envelope-opening.ts). What it signed
 * cannot change, so it is refused (never altered) when the hub would have to
 * change it, and it passes the same rules as a post; mentions are the hub's,
 * and it is shown at the hub's receipt time, the ts and meta it signed kept
 * beside them for its signature. Live, it is within its TTL and never seen
 * before (EnvelopeGate); in sync, what is already held is taken once, by id.
 * Each refusal is counted.
 */
export async function takeEnvelope(ctx: HubContext, admitted: Admitted<unknown, ThreadRecord, OpenedEnvelope>): Promise<IngestResult> {
  const { caller, envelope } = admitted;
  const { fields, meta, text } = envelope;
  const gate = ctx.envelopes;
  const secrets = await ctx.redactor.find([text, ...(meta.tags ?? [])]);
  const secretAt = secrets.spans.findIndex((spans) => spans.length > 0);
  if (secretAt >= 0) {
    const field = secretAt === 0 ? 'envelope.content' : `envelope.meta.tags.${secretAt - 1}`;
    throw gate.drop('malformed', new ParleyError('INVALID_INPUT', `Envelope ${fields.id}: its ${field.slice('envelope.'.length)} holds a secret, and a signed message cannot be redacted; it was dropped.`, { field }));
  }
  // From here to the write nothing awaits: what is checked is what is stored.
  if (envelope.mode === 'sync') {
    const held = ctx.store.events.byId(fields.id);
    if (held) {
      gate.drop('duplicate', new ParleyError('ENVELOPE_REJECTED', `Envelope ${fields.id} is already held.`, { field: 'envelope.id' }));
      return { id: held.id, seq: held.seq, thread: held.thread_id, duplicate: true };
    }
  }
  const thread = current(ctx, admitted.thread, 'envelope.thread');
  let to: ParticipantRecord | undefined;
  try {
    // As a post: an addressee of its session, who can see the thread; steering as for a post.
    if (fields.to !== null) {
      const addressee = participantOf(ctx, fields.to);
      to = addressee && caller.session.members.has(addressee.id) ? addressee : undefined;
      if (!to) throw new ParleyError('NOT_FOUND', `Envelope ${fields.id}: it is addressed to a key that is not a participant of this session.`, { field: 'envelope.to' });
      assertCanSee(thread, to.id, 'envelope.to');
    }
    assertMayPost(caller, thread, 'envelope.thread');
  } catch (error) {
    throw dropped(ctx, 'forbidden', error);
  }
  let draft: EventDraft;
  try {
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
    throw dropped(ctx, 'malformed', error);
  }
  if (envelope.mode === 'live') {
    // After every other check, so that an envelope refused for its content does not use up its id: fixed, it may come again.
    gate.admit(fields.id, fields.ts, fields.ttl_secs);
    if (ctx.store.events.byId(fields.id)) {
      throw gate.drop('duplicate', new ParleyError('ENVELOPE_REJECTED', `Envelope ${fields.id} is already stored (a replay); it was dropped.`, { field: 'envelope.id' }));
    }
    // sender_seq only grows per author, thread and epoch: a number given again is a replay of another event.
    const lastSeq = ctx.store.events.lastSenderSeq(caller.participant.id, thread.id, Buffer.from(fields.sender_epoch));
    if (lastSeq !== undefined && fields.sender_seq <= lastSeq) {
      throw gate.drop(
        'duplicate',
        new ParleyError('ENVELOPE_REJECTED', `Envelope ${fields.id}: sender_seq ${fields.sender_seq} is not after ${lastSeq}, already used in this epoch; it was dropped.`, { field: 'envelope.sender_seq' }),
      );
    }
  }
  const event = await transact(ctx, (tx) => {
    ensureSubscribed(ctx, thread, caller.participant.id);
    return tx.append({
      ...draft,
      sealed: {
        id: fields.id,
        ts: fields.ts,
        meta: fields.meta,
        ttl_secs: fields.ttl_secs,
        sender_seq: fields.sender_seq,
        sender_epoch: Buffer.from(fields.sender_epoch),
        sig: envelope.sig,
      },
    });
  });
  gate.accepted();
  return { id: event.id, seq: event.seq, thread: thread.id };
}
