// Posting a message: cut what is too long, redact secrets
// (in the text and the tags), then, after the scan, the message rules once,
// and the append. The author is always the caller.

import type { z } from 'zod';
import { ParleyError, parseInput } from '../errors/parley-error.js';
import { DmInputSchema, type DmInput, type PostInputSchema } from '../schema/inputs.js';
import { redactInput } from './authored-input.js';
import type { HubContext } from './context.js';
import { resolveMember } from './caller.js';
import type { Caller } from './records.js';
import { current, type Admitted } from './gate.js';
import { acceptMessage, messageDraft, type MessagePlace, type MessageSpec } from './message-rules.js';
import { assertTextSize } from './text-size.js';
import { createThread, dmKeyOf, ensureSubscribed } from './threads.js';
import type { ThreadRecord } from './records.js';
import { transact, type Transaction } from './writer.js';
import type { PostResult } from './answers.js';

/** A message in a thread the gate resolved and found writable. */
export async function post(ctx: HubContext, { caller, thread, input }: Admitted<z.output<typeof PostInputSchema>, ThreadRecord>): Promise<PostResult> {
  assertTextSize(ctx, input.text, 'text');
  const to = input.to === undefined ? undefined : resolveMember(ctx, caller, input.to, 'to');
  const spec = await redactedMessage(ctx, input.text, input.tags, { to, replyTo: input.reply_to });
  return appendMessage(ctx, caller, current(ctx, thread), spec);
}

/** A direct message: into the DM of the caller and `to`, which its first message creates. */
export async function dm(ctx: HubContext, caller: Caller, input: DmInput): Promise<PostResult> {
  const parsed = parseInput(DmInputSchema, input);
  assertTextSize(ctx, parsed.text, 'text');
  const other = resolveMember(ctx, caller, parsed.to, 'to');
  if (other.id === caller.participant.id) {
    throw new ParleyError('INVALID_INPUT', 'Invalid to: you cannot send a direct message to yourself.', { field: 'to' });
  }
  const spec = await redactedMessage(ctx, parsed.text, parsed.tags, { to: other, replyTo: parsed.reply_to });
  const existing = ctx.state.dm(caller.session.id, dmKeyOf(caller.participant.id, other.id));
  return appendMessage(ctx, caller, existing ?? { newDmWith: other }, spec);
}

/** The message its text and tags become once scanned (secrets redacted, the text cut to the limit). */
async function redactedMessage(
  ctx: HubContext,
  text: string,
  tags: string[] | undefined,
  address: Pick<MessageSpec, 'to' | 'replyTo'>,
): Promise<MessageSpec> {
  const redaction = await ctx.redactor.apply(text);
  const scanned = tags === undefined ? { value: undefined, redacted: false } : await redactInput(ctx, tags);
  return { text: redaction.text, truncated: redaction.truncated, redacted: redaction.redacted || scanned.redacted, tags: scanned.value, ...address };
}

/** The message rules, then one write: the DM created if new (a refused message leaves nothing behind), the event appended. */
async function appendMessage(ctx: HubContext, caller: Caller, place: MessagePlace, spec: MessageSpec): Promise<PostResult> {
  acceptMessage(ctx, caller, place, spec);
  const { event, thread, mentions } = await transact(ctx, (tx) => {
    const thread = 'newDmWith' in place ? dmWithin(ctx, tx, caller, place.newDmWith.id) : place;
    const { draft, mentions } = messageDraft(ctx, caller, thread, spec);
    ensureSubscribed(ctx, thread, caller.participant.id);
    return { event: tx.append(draft), thread, mentions };
  });
  return {
    id: event.id,
    seq: event.seq,
    thread: thread.id,
    ts: event.ts,
    truncated: spec.truncated,
    redacted: spec.redacted,
    mentions: mentions.map((id) => ctx.state.participant(id).handle),
  };
}

/** The DM thread of two participants, created inside the caller's transaction if need be. */
export function dmWithin(ctx: HubContext, tx: Transaction, caller: Caller, otherId: string): ThreadRecord {
  const key = dmKeyOf(caller.participant.id, otherId);
  const existing = ctx.state.dm(caller.session.id, key);
  if (existing) return existing;
  const other = ctx.state.participant(otherId);
  const [a, b] = [caller.participant.handle, other.handle].sort();
  return createThread(ctx, tx, {
    session: caller.session,
    kind: 'dm',
    name: `dm:${a},${b}`,
    createdBy: caller.participant.id,
    dmKey: key,
    members: [otherId],
  }).thread;
}
