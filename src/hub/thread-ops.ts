import { ParleyError, parseInput } from '../errors/parley-error.js';
import { TO_ALL } from '../schema/event.js';
import {
  CloseSideInputSchema,
  CreateChannelInputSchema,
  OpenSideInputSchema,
  RenameThreadInputSchema,
  SubscriptionInputSchema,
  type CloseSideInput,
  type CreateChannelInput,
  type OpenSideInput,
  type RenameThreadInput,
  type SubscriptionInput,
} from '../schema/inputs.js';
import { redactInput, refuseSecretName } from './authored-input.js';
import type { HubContext } from './context.js';
import { assertTextSize } from './posting.js';
import { assertMayPost, resolveFor, resolveMember, type Caller } from './caller.js';
import {
  assertEventInThread,
  createThread,
  ensureSubscribed,
  membershipOf,
  parseChannelName,
  parseThreadTitle,

  saveMembership,
  saveThreadState,
  threadInfo,
  type ThreadInfo,
} from './threads.js';
import { transact } from './writer.js';

/** Creating, renaming, subscribing to, and opening and closing side channels. */

/** Each of these writes but subscribing counts against the participant's write limit. */
const takeWrite = (ctx: HubContext, caller: Caller): void => ctx.rateLimiter.take(caller.participant.id, caller.participant.handle);

export async function createChannel(ctx: HubContext, caller: Caller, input: CreateChannelInput): Promise<ThreadInfo> {
  const parsed = parseInput(CreateChannelInputSchema, input);
  await refuseSecretName(ctx, parsed.name, 'name');
  if (ctx.state.channel(caller.session.id, parsed.name)) {
    throw new ParleyError('CONFLICT', `Channel "#${parsed.name}" already exists in session "${caller.session.name}"; post to it or pick another name.`, {
      field: 'name',
    });
  }
  const members = (parsed.members ?? []).map((h, i) => resolveMember(ctx, caller, h, `members.${i}`).id);
  takeWrite(ctx, caller);
  const thread = await transact(ctx, (tx) =>
    createThread(ctx, tx, { session: caller.session, kind: 'channel', name: parsed.name, createdBy: caller.participant.id, members }).thread,
  );
  return threadInfo(thread, caller.participant.id);
}

export async function renameThread(ctx: HubContext, caller: Caller, input: RenameThreadInput): Promise<ThreadInfo> {
  const parsed = parseInput(RenameThreadInputSchema, input);
  const named = resolveFor(ctx, caller, parsed.thread);
  if (named.kind === 'dm') {
    throw new ParleyError('INVALID_INPUT', 'Invalid thread: direct-message threads cannot be renamed; rename a channel or side channel instead.', { field: 'thread' });
  }
  // A channel name is an address (refused if it holds a secret); a side channel's title is free text (redacted).
  let name: string;
  let redacted = false;
  if (named.kind === 'channel') {
    name = parseChannelName(parsed.name);
    await refuseSecretName(ctx, name, 'name');
  } else {
    const title = await redactInput(ctx, parseThreadTitle(parsed.name));
    name = title.value;
    redacted = title.redacted;
  }
  // Look again after the await: the records may have been reloaded meanwhile.
  const thread = resolveFor(ctx, caller, parsed.thread);
  if (thread.kind === 'channel' && name !== thread.name && ctx.state.channel(caller.session.id, name)) {
    throw new ParleyError('CONFLICT', `Channel "#${name}" already exists in this session; pick another name.`, { field: 'name' });
  }
  assertMayPost(caller, thread);
  const from = thread.name;
  if (name === from) return threadInfo(thread, caller.participant.id);
  takeWrite(ctx, caller);
  await transact(ctx, (tx) => {
    ctx.store.threads.rename(thread.id, name);
    ctx.state.renameChannel(thread, name);
    tx.append({
      thread,
      type: 'system',
      from: caller.participant.id,
      to: TO_ALL,
      content: { action: 'thread.renamed', from, name },
      ...(redacted ? { meta: { redacted: true } } : {}),
    });
  });
  return threadInfo(thread, caller.participant.id);
}

export async function setSubscription(ctx: HubContext, caller: Caller, input: SubscriptionInput): Promise<ThreadInfo> {
  const parsed = parseInput(SubscriptionInputSchema, input);
  const thread = resolveFor(ctx, caller, parsed.thread);
  const membership = membershipOf(thread, caller.participant.id);
  if (!thread.members.has(caller.participant.id) || membership.subscription !== parsed.state) {
    await transact(ctx, () => saveMembership(ctx, thread, { ...membership, subscription: parsed.state }));
  }
  return threadInfo(thread, caller.participant.id);
}

export interface SideOpened extends ThreadInfo {
  /** The event in the parent thread that links to the side channel. */
  link_event: string;
}

export async function openSide(ctx: HubContext, caller: Caller, input: OpenSideInput): Promise<SideOpened> {
  const parsed = parseInput(OpenSideInputSchema, input);
  const title = await redactInput(ctx, parsed.title);
  const parent = resolveFor(ctx, caller, parsed.parent, 'parent');
  if (parent.kind === 'dm') {
    throw new ParleyError('INVALID_INPUT', 'Invalid parent: open side channels from a channel or another side channel, not a DM.', {
      field: 'parent',
    });
  }
  assertMayPost(caller, parent, 'parent');
  if (parsed.from_event !== undefined) assertEventInThread(ctx, parent, parsed.from_event, 'from_event');
  const members = (parsed.members ?? []).map((h, i) => resolveMember(ctx, caller, h, `members.${i}`).id);
  takeWrite(ctx, caller);
  const result = await transact(ctx, (tx) => {
    const { thread } = createThread(ctx, tx, {
      session: caller.session,
      kind: 'side',
      name: title.value,
      createdBy: caller.participant.id,
      parent,
      members,
    });
    ensureSubscribed(ctx, parent, caller.participant.id);
    const link = tx.append({
      thread: parent,
      type: 'system',
      from: caller.participant.id,
      to: TO_ALL,
      content: { action: 'side.opened', side: thread.id, title: thread.name, members: members.length + 1 },
      meta: {
        link: thread.id,
        ...(parsed.from_event === undefined ? {} : { reply_to: parsed.from_event }),
        ...(title.redacted ? { redacted: true } : {}),
      },
    });
    return { thread, link };
  });
  return { ...threadInfo(result.thread, caller.participant.id), link_event: result.link.id };
}

export interface SideClosed {
  thread: string;
  parent: string;
  /** The summary message posted into the parent, linking back to the side channel. */
  summary_event: string;
  summary_seq: number;
  redacted: boolean;
  truncated: boolean;
}

export async function closeSide(ctx: HubContext, caller: Caller, input: CloseSideInput): Promise<SideClosed> {
  const parsed = parseInput(CloseSideInputSchema, input);
  assertTextSize(ctx, parsed.summary, 'summary');
  const side = resolveFor(ctx, caller, parsed.thread);
  if (side.kind !== 'side' || side.parentId === undefined) {
    throw new ParleyError('INVALID_INPUT', `Invalid thread: "${side.name}" is not a side channel; only side channels are closed with a summary.`, {
      field: 'thread',
    });
  }
  if (side.state.closed) {
    throw new ParleyError('THREAD_CLOSED', `Side channel "${side.name}" is already closed; its summary is in the parent thread. Nothing more to do.`, { field: 'thread' });
  }
  assertMayPost(caller, side);
  takeWrite(ctx, caller);
  // The whole summary message obeys the posting rules (limit and scanner), not just the summary.
  const redaction = await ctx.redactor.apply(`Side channel "${side.name}" closed. Summary: ${parsed.summary}`);
  // Look again after the await: the records may have been reloaded meanwhile.
  const current = resolveFor(ctx, caller, side.id);
  if (current.state.closed) throw new ParleyError('THREAD_CLOSED', `Side channel "${current.name}" is already closed.`, { field: 'thread' });
  const parent = ctx.state.threads.get(side.parentId);
  if (!parent) throw new ParleyError('NOT_FOUND', `The parent of side channel "${side.name}" no longer exists.`, { field: 'thread' });
  assertMayPost(caller, current);
  assertMayPost(caller, parent, 'parent');
  const me = caller.participant.id;
  const summary = await transact(ctx, (tx) => {
    tx.append({ thread: current, type: 'system', from: me, to: TO_ALL, content: { action: 'thread.closed', summary: redaction.text } });
    current.state = { ...current.state, closed: true, summary: redaction.text };
    saveThreadState(ctx, current);
    ensureSubscribed(ctx, parent, me);
    return tx.append({
      thread: parent,
      type: 'message',
      from: me,
      to: TO_ALL,
      content: redaction.text,
      meta: { link: side.id, ...(redaction.redacted ? { redacted: true } : {}), ...(redaction.truncated ? { truncated: true } : {}) },
    });
  });
  return {
    thread: side.id,
    parent: parent.id,
    summary_event: summary.id,
    summary_seq: summary.seq,
    redacted: redaction.redacted,
    truncated: redaction.truncated,
  };
}
