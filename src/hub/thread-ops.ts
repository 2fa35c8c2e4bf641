// Creating, renaming, subscribing to, and opening and closing side channels (each a write but subscribing: see entries.ts).

import type { z } from 'zod';
import { ParleyError, parseInput } from '../errors/parley-error.js';
import { TO_ALL } from '../schema/event.js';
import {
  CreateChannelInputSchema,
  type CloseSideInputSchema,
  type CreateChannelInput,
  type OpenSideInputSchema,
  type RenameThreadInputSchema,
  type SubscriptionInputSchema,
} from '../schema/inputs.js';
import { redactInput, refuseSecretName } from './authored-input.js';
import type { HubContext } from './context.js';
import { resolveMember } from './caller.js';
import type { Caller } from './records.js';
import { assertMayPost } from './message-rules.js';
import { current, type Admitted } from './gate.js';
import type { ThreadRecord } from './records.js';
import { assertTextSize } from './text-size.js';
import { assertEventInThread, createThread, ensureSubscribed, membershipOf, parseChannelName, parseThreadTitle, saveMembership, saveThreadState, threadInfo, type ThreadInfo } from './threads.js';
import { transact } from './writer.js';
import type { SideClosed, SideOpened } from './answers.js';

export async function createChannel(ctx: HubContext, caller: Caller, input: CreateChannelInput): Promise<ThreadInfo> {
  const parsed = parseInput(CreateChannelInputSchema, input);
  await refuseSecretName(ctx, parsed.name, 'name');
  if (ctx.state.channel(caller.session.id, parsed.name)) {
    throw new ParleyError('CONFLICT', `Channel "#${parsed.name}" already exists in session "${caller.session.name}"; post to it or pick another name.`, {
      field: 'name',
    });
  }
  const members = (parsed.members ?? []).map((h, i) => resolveMember(ctx, caller, h, `members.${i}`).id);
  const thread = await transact(ctx, (tx) =>
    createThread(ctx, tx, { session: caller.session, kind: 'channel', name: parsed.name, createdBy: caller.participant.id, members }).thread,
  );
  return threadInfo(thread, caller.participant.id);
}

export async function renameThread(ctx: HubContext, { caller, thread: named, input }: Admitted<z.output<typeof RenameThreadInputSchema>, ThreadRecord>): Promise<ThreadInfo> {
  if (named.kind === 'dm') {
    throw new ParleyError('INVALID_INPUT', 'Invalid thread: direct-message threads cannot be renamed; rename a channel or side channel instead.', { field: 'thread' });
  }
  // A channel name is an address (refused if it holds a secret); a side channel's title is free text (redacted).
  let name: string;
  let redacted = false;
  if (named.kind === 'channel') {
    name = parseChannelName(input.name);
    await refuseSecretName(ctx, name, 'name');
  } else {
    const title = await redactInput(ctx, parseThreadTitle(input.name));
    name = title.value;
    redacted = title.redacted;
  }
  const thread = current(ctx, named);
  if (thread.kind === 'channel' && name !== thread.name && ctx.state.channel(caller.session.id, name)) {
    throw new ParleyError('CONFLICT', `Channel "#${name}" already exists in this session; pick another name.`, { field: 'name' });
  }
  assertMayPost(caller, thread);
  const from = thread.name;
  if (name === from) return threadInfo(thread, caller.participant.id);
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

export async function setSubscription(ctx: HubContext, { caller, thread, input }: Admitted<z.output<typeof SubscriptionInputSchema>, ThreadRecord>): Promise<ThreadInfo> {
  const membership = membershipOf(thread, caller.participant.id);
  if (!thread.members.has(caller.participant.id) || membership.subscription !== input.state) {
    await transact(ctx, () => saveMembership(ctx, thread, { ...membership, subscription: input.state }));
  }
  return threadInfo(thread, caller.participant.id);
}

export async function openSide(ctx: HubContext, { caller, thread: named, input }: Admitted<z.output<typeof OpenSideInputSchema>, ThreadRecord>): Promise<SideOpened> {
  if (named.kind === 'dm') {
    throw new ParleyError('INVALID_INPUT', 'Invalid parent: open side channels from a channel or another side channel, not a DM.', {
      field: 'parent',
    });
  }
  const title = await redactInput(ctx, input.title);
  const parent = current(ctx, named, 'parent');
  assertMayPost(caller, parent, 'parent');
  if (input.from_event !== undefined) assertEventInThread(ctx, parent, input.from_event, 'from_event');
  const members = (input.members ?? []).map((h, i) => resolveMember(ctx, caller, h, `members.${i}`).id);
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
        ...(input.from_event === undefined ? {} : { reply_to: input.from_event }),
        ...(title.redacted ? { redacted: true } : {}),
      },
    });
    return { thread, link };
  });
  return { ...threadInfo(result.thread, caller.participant.id), link_event: result.link.id };
}

export async function closeSide(ctx: HubContext, { caller, thread: side, input }: Admitted<z.output<typeof CloseSideInputSchema>, ThreadRecord>): Promise<SideClosed> {
  assertTextSize(ctx, input.summary, 'summary');
  if (side.kind !== 'side' || side.parentId === undefined) {
    throw new ParleyError('INVALID_INPUT', `Invalid thread: "${side.name}" is not a side channel; only side channels are closed with a summary.`, {
      field: 'thread',
    });
  }
  if (side.state.closed) {
    throw new ParleyError('THREAD_CLOSED', `Side channel "${side.name}" is already closed; its summary is in the parent thread. Nothing more to do.`, { field: 'thread' });
  }
  // The whole summary message obeys the posting rules (limit and scanner), not just the summary.
  const redaction = await ctx.redactor.apply(`Side channel "${side.name}" closed. Summary: ${input.summary}`);
  const sideNow = current(ctx, side);
  if (sideNow.state.closed) throw new ParleyError('THREAD_CLOSED', `Side channel "${sideNow.name}" is already closed.`, { field: 'thread' });
  const parent = ctx.state.threads.get(side.parentId);
  if (!parent) throw new ParleyError('NOT_FOUND', `The parent of side channel "${side.name}" no longer exists.`, { field: 'thread' });
  assertMayPost(caller, sideNow);
  assertMayPost(caller, parent, 'parent');
  const me = caller.participant.id;
  const summary = await transact(ctx, (tx) => {
    tx.append({ thread: sideNow, type: 'system', from: me, to: TO_ALL, content: { action: 'thread.closed', summary: redaction.text } });
    sideNow.state = { ...sideNow.state, closed: true, summary: redaction.text };
    saveThreadState(ctx, sideNow);
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
