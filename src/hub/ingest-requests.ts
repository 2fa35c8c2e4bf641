// Taking in a request or a response its author signed on another hub (a
// linked hub sends it): the rules of one sent here hold — the addressee, the
// thread's steering, the hop limit, a request_id used once, a response only
// from the request's addressee and never to a closed request — and the
// request index is kept as for one sent here. What was signed cannot be
// redacted: one carrying a secret is refused.

import { ParleyError } from '../errors/parley-error.js';
import type { SecretSearch } from '../redaction/redactor.js';
import type { RequestContent, ResponseContent } from '../schema/event.js';
import type { IngestResult } from './answers.js';
import type { HubContext } from './context.js';
import { dropped, participantOf, sealedOf, type OpenedEnvelope } from './envelope-opening.js';
import { current, type Admitted } from './gate.js';
import { acceptRequest, acceptResponse, heldAlready, reachOf } from './message-rules.js';
import type { ThreadRecord } from './records.js';
import { ensureSubscribed } from './threads.js';
import { transact } from './writer.js';

type AdmittedEnvelope = Admitted<unknown, ThreadRecord, OpenedEnvelope>;

/** What a request's or a response's secret scan looks at: its words and its structured values, as JSON. */
export function requestTextsOf(content: unknown): string[] {
  const { intent, text, params, result } = (content ?? {}) as { intent?: unknown; text?: unknown; params?: unknown; result?: unknown };
  return [intent, text, params === undefined ? undefined : JSON.stringify(params), result === undefined ? undefined : JSON.stringify(result)].filter((t): t is string => typeof t === 'string');
}

export async function takeRequest(ctx: HubContext, admitted: AdmittedEnvelope, scanned: SecretSearch | undefined): Promise<IngestResult> {
  const { caller, envelope } = admitted;
  const content = envelope.request!;
  refuseSecrets(ctx, envelope, scanned ?? (await ctx.redactor.find(requestTextsOf(content))));
  const held = heldAlready(ctx, envelope);
  if (held) return { id: held.id, seq: held.seq, thread: held.thread_id, duplicate: true };
  const thread = current(ctx, admitted.thread, 'envelope.thread');
  const target = envelope.fields.to === null ? undefined : participantOf(ctx, envelope.fields.to);
  if (!target || !caller.session.members.has(target.id) || target.id === caller.participant.id) {
    throw ctx.envelopes.drop('forbidden', new ParleyError('NOT_FOUND', `Envelope ${envelope.fields.id}: a request is addressed to another participant of its session.`, { field: 'envelope.to' }));
  }
  if (content.hop > ctx.config.requests.maxHop) {
    throw ctx.envelopes.drop(
      'forbidden',
      new ParleyError('HOP_LIMIT', `Envelope ${envelope.fields.id}: hop ${content.hop} is over the limit of ${ctx.config.requests.maxHop}.`, { field: 'envelope.content.hop' }),
    );
  }
  try {
    acceptRequest(ctx, caller, target, thread, content.request_id);
  } catch (error) {
    throw dropped(ctx, 'forbidden', error);
  }
  const stored: RequestContent = content;
  const event = await transact(ctx, (tx) => {
    ensureSubscribed(ctx, thread, caller.participant.id);
    const appended = tx.append({
      thread,
      type: 'request',
      from: caller.participant.id,
      to: target.id,
      content: stored,
      reach: reachOf(ctx, thread, caller.participant.id, [{ participantId: target.id, reason: 'request' }]),
      sealed: sealedOf(envelope),
    });
    ctx.store.requests.insert({
      request_id: content.request_id,
      session_id: caller.session.id,
      thread_id: thread.id,
      seq: appended.seq,
      from_id: caller.participant.id,
      to_id: target.id,
      intent: content.intent,
      hop: content.hop,
      reply_to: content.reply_to ?? null,
      status: 'open',
      updated_seq: appended.seq,
    });
    return appended;
  });
  ctx.envelopes.accepted();
  return { id: event.id, seq: event.seq, thread: thread.id };
}

/**
 * A response: from the request's addressee, to a request still open. One to a
 * request this hub never received (it reached this hub's channel by another
 * way) is stored as an event of the thread, with no index to update.
 */
export async function takeResponse(ctx: HubContext, admitted: AdmittedEnvelope, scanned: SecretSearch | undefined): Promise<IngestResult> {
  const { caller, envelope } = admitted;
  const content = envelope.response!;
  refuseSecrets(ctx, envelope, scanned ?? (await ctx.redactor.find(requestTextsOf(content))));
  const held = heldAlready(ctx, envelope);
  if (held) return { id: held.id, seq: held.seq, thread: held.thread_id, duplicate: true };
  const thread = current(ctx, admitted.thread, 'envelope.thread');
  const request = ctx.store.requests.get(content.request_id);
  if (request && request.to_id !== caller.participant.id) {
    throw ctx.envelopes.drop('forbidden', new ParleyError('FORBIDDEN', `Envelope ${envelope.fields.id}: request ${content.request_id} is addressed to someone else; only its addressee can respond.`, { field: 'envelope.content.request_id' }));
  }
  try {
    if (request) acceptResponse(caller, thread, request);
  } catch (error) {
    throw dropped(ctx, 'forbidden', error);
  }
  const to = envelope.fields.to === null ? undefined : participantOf(ctx, envelope.fields.to);
  const stored: ResponseContent = content;
  const event = await transact(ctx, (tx) => {
    const appended = tx.append({
      thread,
      type: 'response',
      from: caller.participant.id,
      to: to?.id ?? request?.from_id ?? caller.participant.id,
      content: stored,
      reach: to ? reachOf(ctx, thread, caller.participant.id, [{ participantId: to.id, reason: 'response' }]) : new Map(),
      sealed: sealedOf(envelope),
    });
    if (request) ctx.store.requests.updateStatus(request.request_id, content.status, appended.seq);
    return appended;
  });
  ctx.envelopes.accepted();
  return { id: event.id, seq: event.seq, thread: thread.id };
}

function refuseSecrets(ctx: HubContext, envelope: OpenedEnvelope, secrets: SecretSearch): void {
  if (secrets.spans.some((spans) => spans.length > 0)) {
    throw ctx.envelopes.drop(
      'malformed',
      new ParleyError('INVALID_INPUT', `Envelope ${envelope.fields.id}: its content holds a secret, and a signed ${envelope.kind} cannot be redacted; it was dropped.`, { field: 'envelope.content' }),
    );
  }
}
