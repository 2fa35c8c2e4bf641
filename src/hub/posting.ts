import type { z } from 'zod';
import { ParleyError, parseInput } from '../errors/parley-error.js';
import { TO_ALL, type EventMeta } from '../schema/event.js';
import { DmInputSchema, type DmInput, type PostInputSchema } from '../schema/inputs.js';
import { redactInput } from './authored-input.js';
import { assertReachableByChat, chatOpenFor } from './chat-exclusion.js';
import type { HubContext } from './context.js';
import { findMentions } from './mentions.js';
import { assertMayPost, resolveMember, type Caller } from './caller.js';
import { mayRead } from './channel-access.js';
import { current, type Admitted } from './gate.js';
import { assertTextSize } from './text-size.js';
import { assertEventInThread, canSee, createThread, dmKeyOf, ensureSubscribed } from './threads.js';
import type { ThreadRecord } from './state.js';
import { transact, type DeliveryReason, type EventDraft, type Transaction } from './writer.js';

/**
 * Posting a message (Maestro's rules): refuse what steering forbids, cut what
 * is too long, redact secrets (in the text and the tags), then append. The
 * author is always the caller.
 */
export interface PostResult {
  id: string;
  seq: number;
  thread: string;
  ts: string;
  truncated: boolean;
  redacted: boolean;
  /** Handles of the participants the message @mentions. */
  mentions: string[];
}

export async function post(ctx: HubContext, { caller, thread, input }: Admitted<z.output<typeof PostInputSchema>, ThreadRecord>): Promise<PostResult> {
  assertTextSize(ctx, input.text, 'text');
  // Check before the (async) scan so refused posts cost nothing; check again after it.
  assertMayPost(caller, thread);
  const redaction = await ctx.redactor.apply(input.text);
  const tags = input.tags === undefined ? { value: undefined, redacted: false } : await redactInput(ctx, input.tags);
  return appendMessage(ctx, caller, current(ctx, thread), {
    text: redaction.text,
    truncated: redaction.truncated,
    redacted: redaction.redacted || tags.redacted,
    to: input.to,
    replyTo: input.reply_to,
    tags: tags.value,
  });
}

export async function dm(ctx: HubContext, caller: Caller, input: DmInput): Promise<PostResult> {
  const parsed = parseInput(DmInputSchema, input);
  assertTextSize(ctx, parsed.text, 'text');
  const other = resolveMember(ctx, caller, parsed.to, 'to');
  if (other.id === caller.participant.id) {
    throw new ParleyError('INVALID_INPUT', 'Invalid to: you cannot send a direct message to yourself.', { field: 'to' });
  }
  // Checked before the DM thread is created, so a refused message leaves nothing behind.
  assertReachableByChat(ctx.config, other, 'to');
  ctx.access.requireAddressee(other, 'to');
  if (parsed.reply_to !== undefined) {
    // Check before the DM thread is created, so a refused message leaves nothing behind.
    const existing = ctx.state.dm(caller.session.id, dmKeyOf(me(caller), other.id));
    if (!existing) {
      throw new ParleyError('NOT_FOUND', `No event ${parsed.reply_to} in your direct messages with @${other.handle}; reply_to must name an event of that DM.`, {
        field: 'reply_to',
      });
    }
    assertEventInThread(ctx, existing, parsed.reply_to, 'reply_to');
  }
  const redaction = await ctx.redactor.apply(parsed.text);
  const tags = parsed.tags === undefined ? { value: undefined, redacted: false } : await redactInput(ctx, parsed.tags);
  // Again after the awaits, still before the DM thread is created.
  ctx.access.requireAddressee(other, 'to');
  const thread = await ensureDm(ctx, caller, other.id);
  return appendMessage(ctx, caller, thread, {
    text: redaction.text,
    truncated: redaction.truncated,
    redacted: redaction.redacted || tags.redacted,
    to: other.handle,
    replyTo: parsed.reply_to,
    tags: tags.value,
  });
}

const me = (caller: Caller): string => caller.participant.id;

/** A DM's events may target only its two participants. */
export function assertCanSee(thread: ThreadRecord, participantId: string | undefined, field: string): void {
  if (participantId === undefined || canSee(thread, participantId)) return;
  throw new ParleyError('INVALID_INPUT', `Invalid ${field}: this is a direct-message thread; only its two participants can be addressed in it.`, {
    field,
  });
}

/** The DM thread of two participants in the session, created on first use. */
export async function ensureDm(ctx: HubContext, caller: Caller, otherId: string): Promise<ThreadRecord> {
  const existing = ctx.state.dm(caller.session.id, dmKeyOf(caller.participant.id, otherId));
  if (existing) return existing;
  return transact(ctx, (tx) => dmWithin(ctx, tx, caller, otherId));
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

export interface MessageSpec {
  text: string;
  truncated: boolean;
  redacted: boolean;
  to: string | undefined;
  replyTo: string | undefined;
  tags: string[] | undefined;
  /** How errors name the addressee and reply_to: a post's own fields by default, an envelope's fields for one (src/hub/ingest.ts). */
  fields?: { to: string; replyTo: string; thread?: string };
}

/**
 * The rules every message passes after its text, and the event it becomes:
 * steering and channel access, the addressee, reply_to in the same thread, and
 * the mentions and flags the hub computes. A post and an envelope its author
 * signed elsewhere (src/hub/ingest.ts) both go through here.
 */
export function messageDraft(ctx: HubContext, caller: Caller, thread: ThreadRecord, spec: MessageSpec): { draft: EventDraft; mentions: string[] } {
  const fields = spec.fields ?? { to: 'to', replyTo: 'reply_to' };
  assertMayPost(caller, thread);
  const me = caller.participant;
  const to = spec.to === undefined ? undefined : resolveMember(ctx, caller, spec.to, fields.to);
  assertCanSee(thread, to?.id, fields.to);
  if (to) assertReachableByChat(ctx.config, to, fields.to);
  if (spec.replyTo !== undefined) assertEventInThread(ctx, thread, spec.replyTo, fields.replyTo);
  // In a DM only its two participants are reachable, and no one without chat is: other @names are plain text.
  // A message in a DM is for its other participant, who must be in the roster in force to read it.
  if (thread.kind === 'dm') {
    const field = spec.to === undefined ? (fields.thread ?? 'thread') : fields.to;
    for (const memberId of thread.members.keys()) if (memberId !== me.id) ctx.access.requireAddressee(ctx.state.participant(memberId), field);
  }
  const mentions = findMentions(spec.text, caller.session, ctx.state).filter(
    (id) => id !== me.id && mayRead(ctx, thread, id) && chatOpenFor(ctx.config, ctx.state.participant(id).profile),
  );
  const targets: Array<{ participantId: string; reason: DeliveryReason }> = [];
  if (thread.kind === 'dm') {
    for (const memberId of thread.members.keys()) targets.push({ participantId: memberId, reason: 'dm' });
  }
  if (to) targets.push({ participantId: to.id, reason: 'direct' });
  for (const id of mentions) targets.push({ participantId: id, reason: 'mention' });
  const meta: EventMeta = {
    ...(spec.replyTo === undefined ? {} : { reply_to: spec.replyTo }),
    ...(spec.tags === undefined || spec.tags.length === 0 ? {} : { tags: spec.tags }),
    ...(mentions.length === 0 ? {} : { mentions }),
    ...(spec.truncated ? { truncated: true } : {}),
    ...(spec.redacted ? { redacted: true } : {}),
  };
  return { draft: { thread, type: 'message', from: me.id, to: to?.id ?? TO_ALL, content: spec.text, meta, targets }, mentions };
}

async function appendMessage(ctx: HubContext, caller: Caller, thread: ThreadRecord, spec: MessageSpec): Promise<PostResult> {
  const { draft, mentions } = messageDraft(ctx, caller, thread, spec);
  const event = await transact(ctx, (tx) => {
    ensureSubscribed(ctx, thread, caller.participant.id);
    return tx.append(draft);
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
