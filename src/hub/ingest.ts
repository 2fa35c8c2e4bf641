import { ParleyError } from '../errors/parley-error.js';
import type { HubContext } from './context.js';
import { dropped, participantOf, sealedOf, type OpenedEnvelope } from './envelope-opening.js';
import { current, type Admitted } from './gate.js';
import { acceptEnvelope, acceptMessage, heldAlready, messageDraft, type MessageSpec } from './message-rules.js';
import type { ParticipantRecord, ThreadRecord } from './records.js';
import { ensureSubscribed, saveThreadState, sideChannelOf } from './threads.js';
import { transact } from './writer.js';
import type { IngestResult } from './answers.js';
import type { SecretSearch } from '../redaction/redactor.js';
import { controlTextsOf, takeControl } from './ingest-controls.js';
import { requestTextsOf, takeRequest, takeResponse } from './ingest-requests.js';

/** How errors name what an envelope carries. */
const ENVELOPE_FIELDS = { to: 'envelope.to', replyTo: 'envelope.meta.reply_to', thread: 'envelope.thread' };

/** Refusals of where an envelope goes (counted as forbidden); any other refusal of its message is of what it says (malformed). */
const STEERING_CODES: ReadonlySet<string> = new Set(['THREAD_CLOSED', 'THREAD_PAUSED', 'PARTICIPANT_MUTED']);

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
export function takeEnvelope(ctx: HubContext, admitted: Admitted<unknown, ThreadRecord, OpenedEnvelope>, scanned?: SecretSearch): Promise<IngestResult> {
  switch (admitted.envelope.kind) {
    case 'message':
      return takeMessage(ctx, admitted, scanned);
    case 'request':
      return takeRequest(ctx, admitted, scanned);
    case 'response':
      return takeResponse(ctx, admitted, scanned);
    case 'control':
      return takeControl(ctx, admitted, scanned);
  }
}

/** What an envelope's secret scan looks at, by its kind (the signed fields as decoded). */
export function scannedTextsOfFields(fields: { kind: string; content: unknown; meta: Record<string, unknown> | null }): string[] {
  if (fields.kind === 'message' && typeof fields.content === 'string') return scannedTextsOf(fields.content, (fields.meta ?? {}) as { tags?: string[] });
  // Of a control, only an invitation's profile is its author's free text.
  return fields.kind === 'control' ? controlTextsOf(fields.content) : requestTextsOf(fields.content);
}

/** What a message's secret scan looks at: its text, then its tags. */
export function scannedTextsOf(text: string, meta: { tags?: string[] }): string[] {
  return [text, ...(meta.tags ?? [])];
}

/**
 * `scanned`: its texts' scan, made beforehand (a linked hub's batch is
 * scanned at once, so that its events are stored in the order they came).
 */
async function takeMessage(ctx: HubContext, admitted: Admitted<unknown, ThreadRecord, OpenedEnvelope>, scanned: SecretSearch | undefined): Promise<IngestResult> {
  if (scanned === undefined) return storeMessage(ctx, admitted, await ctx.redactor.find(scannedTextsOf(admitted.envelope.text, admitted.envelope.meta)));
  return storeMessage(ctx, admitted, scanned);
}

async function storeMessage(ctx: HubContext, admitted: Admitted<unknown, ThreadRecord, OpenedEnvelope>, secrets: SecretSearch): Promise<IngestResult> {
  const { caller, envelope } = admitted;
  const { fields, meta, text } = envelope;
  const gate = ctx.envelopes;
  const secretAt = secrets.spans.findIndex((spans) => spans.length > 0);
  if (secretAt >= 0) {
    const field = secretAt === 0 ? 'envelope.content' : `envelope.meta.tags.${secretAt - 1}`;
    throw gate.drop('malformed', new ParleyError('INVALID_INPUT', `Envelope ${fields.id}: its ${field.slice('envelope.'.length)} holds a secret, and a signed message cannot be redacted; it was dropped.`, { field }));
  }
  // From here to the write nothing awaits: what is checked is what is stored.
  const held = heldAlready(ctx, envelope);
  if (held) return { id: held.id, seq: held.seq, thread: held.thread_id, duplicate: true };
  const thread = current(ctx, admitted.thread, 'envelope.thread');
  let to: ParticipantRecord | undefined;
  if (fields.to !== null) {
    // As a post's: an addressee of its session.
    const addressee = participantOf(ctx, fields.to);
    to = addressee && caller.session.members.has(addressee.id) ? addressee : undefined;
    if (!to) throw gate.drop('forbidden', new ParleyError('NOT_FOUND', `Envelope ${fields.id}: it is addressed to a key that is not a participant of this session.`, { field: 'envelope.to' }));
  }
  // A side channel's closing summary, from a linked hub: it closes the side channel here too.
  const closing = envelope.link === undefined ? undefined : sideChannelOf(ctx, thread, envelope.link);
  const spec: MessageSpec = { text, truncated: false, redacted: false, to, replyTo: meta.reply_to, tags: meta.tags, link: closing?.id, fields: ENVELOPE_FIELDS };
  try {
    acceptMessage(ctx, caller, thread, spec);
  } catch (error) {
    throw dropped(ctx, error instanceof ParleyError && STEERING_CODES.has(error.code) ? 'forbidden' : 'malformed', error);
  }
  acceptEnvelope(ctx, caller.participant.id, thread, envelope);
  const event = await transact(ctx, (tx) => {
    ensureSubscribed(ctx, thread, caller.participant.id);
    if (closing && !closing.state.closed) {
      closing.state = { ...closing.state, closed: true, summary: text };
      saveThreadState(ctx, closing);
    }
    return tx.append({
      ...messageDraft(ctx, caller, thread, spec).draft,
      sealed: sealedOf(envelope),
    });
  });
  gate.accepted();
  return { id: event.id, seq: event.seq, thread: thread.id };
}
