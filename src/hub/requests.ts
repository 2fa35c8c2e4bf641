// Requests and responses: a request is passive data addressed to one
// participant; it carries a hop counter so follow-up chains cannot loop.
// Responses name the request and a status; Accepted keeps it open.

import type { z } from 'zod';
import { ParleyError, parseInput } from '../errors/parley-error.js';
import type { RequestContent, ResponseContent } from '../schema/event.js';
import { RespondInputSchema, type RequestInputSchema, type RespondInput } from '../schema/inputs.js';
import type { RequestRow } from '../store/request-store.js';
import { jsonDepthExceeds } from '../redaction/authored.js';
import { redactInput, refuseSecretName } from './authored-input.js';
import type { HubContext } from './context.js';
import { dmWithin } from './posting.js';
import { resolveMember } from './caller.js';
import type { Caller } from './records.js';
import { current, type Admitted } from './gate.js';
import { acceptRequest, acceptResponse, reachOf } from './message-rules.js';
import { findRequest } from './request-ref.js';
import { mayRead } from './channel-access.js';
import { assertTextSize } from './text-size.js';
import { dmKeyOf, ensureSubscribed } from './threads.js';
import { transact } from './writer.js';

export type { OpenRequest } from '../schema/views.js';
import type { OpenRequest } from '../schema/views.js';
import type { RequestResult, ResponseResult } from './answers.js';

export async function sendRequest(ctx: HubContext, { caller, thread: named, input: parsed }: Admitted<z.output<typeof RequestInputSchema>>): Promise<RequestResult> {
  const me = caller.participant;
  const target = resolveMember(ctx, caller, parsed.to, 'to');
  if (target.id === me.id) throw new ParleyError('INVALID_INPUT', 'Invalid to: a request must be addressed to someone else.', { field: 'to' });
  assertJsonSize(ctx, parsed.params ?? {}, 'params');
  if (parsed.text !== undefined) assertTextSize(ctx, parsed.text, 'text');
  let hop = 0;
  // The request followed up, by its whole id however it was named.
  let replyTo: string | undefined;
  if (parsed.reply_to !== undefined) {
    const parent = findRequest(ctx, caller, parsed.reply_to, 'reply_to');
    const parentThread = parent ? ctx.state.threads.get(parent.thread_id) : undefined;
    if (!parent || parent.session_id !== caller.session.id || (parentThread && !mayRead(ctx, parentThread, me.id))) {
      throw new ParleyError('NOT_FOUND', `No request ${parsed.reply_to} in this session to follow up on; check reply_to.`, { field: 'reply_to' });
    }
    hop = parent.hop + 1;
    replyTo = parent.request_id;
  }
  if (hop > ctx.config.requests.maxHop) {
    throw new ParleyError(
      'HOP_LIMIT',
      `This follow-up would be hop ${hop}, over the limit of ${ctx.config.requests.maxHop}: the request chain is too deep. Answer the original request instead of asking further.`,
      { field: 'reply_to', details: { hop, maxHop: ctx.config.requests.maxHop } },
    );
  }
  if (parsed.request_id !== undefined) await refuseSecretName(ctx, parsed.request_id, 'request_id');
  const redaction = parsed.text === undefined ? undefined : await ctx.redactor.apply(parsed.text);
  const intent = await redactInput(ctx, parsed.intent);
  const params = await redactInput(ctx, parsed.params ?? {});
  const redacted = (redaction?.redacted ?? false) || intent.redacted || params.redacted;
  // Everything below runs without an await: the rules, then one write (with the DM if it is new).
  const place = named ? current(ctx, named) : (ctx.state.dm(caller.session.id, dmKeyOf(me.id, target.id)) ?? { newDmWith: target });
  acceptRequest(ctx, caller, target, place, parsed.request_id);
  const requestId = parsed.request_id ?? ctx.newId();
  const content: RequestContent = {
    request_id: requestId,
    intent: intent.value,
    params: params.value,
    ...(replyTo === undefined ? {} : { reply_to: replyTo }),
    hop,
    ...(redaction === undefined ? {} : { text: redaction.text }),
  };
  const { event, thread } = await transact(ctx, (tx) => {
    const thread = 'newDmWith' in place ? dmWithin(ctx, tx, caller, target.id) : place;
    ensureSubscribed(ctx, thread, me.id);
    const appended = tx.append({
      thread,
      type: 'request',
      from: me.id,
      to: target.id,
      content,
      ...(redacted ? { meta: { redacted: true } } : {}),
      reach: reachOf(ctx, thread, me.id, [{ participantId: target.id, reason: 'request' }]),
    });
    ctx.store.requests.insert({
      request_id: requestId,
      session_id: caller.session.id,
      thread_id: thread.id,
      seq: appended.seq,
      from_id: me.id,
      to_id: target.id,
      intent: intent.value,
      hop,
      reply_to: replyTo ?? null,
      status: 'open',
      updated_seq: appended.seq,
    });
    return { event: appended, thread };
  });
  return { request_id: requestId, id: event.id, seq: event.seq, thread: thread.id, hop };
}

export async function respond(ctx: HubContext, caller: Caller, input: RespondInput): Promise<ResponseResult> {
  const parsed = parseInput(RespondInputSchema, input);
  const me = caller.participant;
  const request = lookupRequest(ctx, caller, parsed.request_id);
  if (request.to_id !== me.id) {
    throw new ParleyError('FORBIDDEN', `Request ${request.request_id} is addressed to someone else; only its addressee can respond.`, {
      field: 'request_id',
    });
  }
  if (parsed.result !== undefined) assertJsonSize(ctx, parsed.result, 'result');
  if (parsed.text !== undefined) assertTextSize(ctx, parsed.text, 'text');
  const redaction = parsed.text === undefined ? undefined : await ctx.redactor.apply(parsed.text);
  const result = await redactInput(ctx, parsed.result);
  // As it is now: another response may have closed it meanwhile.
  const now = lookupRequest(ctx, caller, request.request_id);
  const thread = ctx.state.threads.get(now.thread_id);
  if (!thread) throw new ParleyError('NOT_FOUND', `The thread of request ${request.request_id} no longer exists.`, { field: 'request_id' });
  acceptResponse(caller, thread, now);
  const content: ResponseContent = {
    request_id: request.request_id,
    status: parsed.status,
    ...(result.value === undefined ? {} : { result: result.value }),
    ...(redaction === undefined ? {} : { text: redaction.text }),
  };
  const redacted = (redaction?.redacted ?? false) || result.redacted;
  const event = await transact(ctx, (tx) => {
    const appended = tx.append({
      thread,
      type: 'response',
      from: me.id,
      to: request.from_id,
      content,
      ...(redacted ? { meta: { redacted: true } } : {}),
      reach: reachOf(ctx, thread, me.id, [{ participantId: request.from_id, reason: 'response' }]),
    });
    ctx.store.requests.updateStatus(request.request_id, parsed.status, appended.seq);
    return appended;
  });
  return { request_id: request.request_id, id: event.id, seq: event.seq, thread: thread.id, status: parsed.status };
}

export function openRequests(ctx: HubContext, caller: Caller): { incoming: OpenRequest[]; outgoing: OpenRequest[] } {
  const view = (row: RequestRow): OpenRequest => {
    // The index row holds no text or params; the request's event holds what was asked.
    const asked = askedIn(ctx, row.seq);
    return {
      request_id: row.request_id,
      intent: row.intent,
      ...(asked.text === undefined ? {} : { text: asked.text }),
      params: asked.params,
      from: ctx.state.participants.get(row.from_id)?.handle ?? row.from_id,
      to: ctx.state.participants.get(row.to_id)?.handle ?? row.to_id,
      thread: row.thread_id,
      hop: row.hop,
      status: row.status === 'Accepted' ? 'Accepted' : 'open',
      seq: row.seq,
      ...(row.reply_to === null ? {} : { reply_to: row.reply_to }),
    };
  };
  return {
    incoming: ctx.store.requests.openIncoming(caller.participant.id, caller.session.id, ctx.store.events.visibleUpTo).map(view),
    outgoing: ctx.store.requests.openOutgoing(caller.participant.id, caller.session.id, ctx.store.events.visibleUpTo).map(view),
  };
}

/** The text and params of the request event at `seq` (stored as already redacted). */
function askedIn(ctx: HubContext, seq: number): { text?: string; params: unknown } {
  const row = ctx.store.events.bySeq(seq);
  if (!row || row.type !== 'request') return { params: {} };
  const content = JSON.parse(row.content) as RequestContent;
  return { ...(content.text === undefined ? {} : { text: content.text }), params: content.params ?? {} };
}

/** Structured values must be JSON, fit the configured size and nest no deeper than the configured depth. */
function assertJsonSize(ctx: HubContext, value: unknown, field: string): void {
  const { maxJsonDepth } = ctx.config.requests;
  if (jsonDepthExceeds(value, maxJsonDepth)) {
    throw new ParleyError(
      'INVALID_INPUT',
      `Invalid ${field}: it nests objects and arrays more than ${maxJsonDepth} levels deep (requests.maxJsonDepth). Send a flatter value.`,
      { field },
    );
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new ParleyError('INVALID_INPUT', `Invalid ${field}: it cannot be written as JSON (${(error as Error).message}). Send plain JSON values.`, {
      field,
    });
  }
  if (json === undefined) throw new ParleyError('INVALID_INPUT', `Invalid ${field}: it cannot be written as JSON. Send plain JSON values.`, { field });
  const bytes = Buffer.byteLength(json);
  if (bytes > ctx.config.requests.maxParamsBytes) {
    throw new ParleyError(
      'PAYLOAD_TOO_LARGE',
      `${field} is ${bytes} bytes as JSON, over the limit of ${ctx.config.requests.maxParamsBytes}. Reference a file instead.`,
      { field },
    );
  }
}

/** A request of another session, or in a DM of others, is not found, like one that does not exist. */
function lookupRequest(ctx: HubContext, caller: Caller, requestId: string): RequestRow {
  const request = findRequest(ctx, caller, requestId, 'request_id');
  const thread = request ? ctx.state.threads.get(request.thread_id) : undefined;
  if (!request || request.session_id !== caller.session.id || (thread && !mayRead(ctx, thread, caller.participant.id))) {
    throw new ParleyError('NOT_FOUND', `No request ${requestId} in session "${caller.session.name}".`, { field: 'request_id', hint: 'list-open-requests' });
  }
  return request;
}
