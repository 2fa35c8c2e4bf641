// Waiting for the inbox: until a waking item arrives, or a bounded time passes.

import { ParleyError, parseInput } from '../errors/parley-error.js';
import { WaitInputSchema, type WaitInput } from '../schema/inputs.js';
import type { Caller } from './records.js';
import { mayRead } from './channel-access.js';
import { chatOpenFor } from './chat-exclusion.js';
import type { HubContext } from './context.js';
import { readInbox } from './inbox.js';
import type { LiveItem } from './live-bus.js';
import { placementOf } from './participation.js';
import { wakeOnFor } from './wake-on.js';
import type { WaitResult } from './answers.js';

/**
 * Resolves as soon as a waking item is in the inbox (returning the inbox, as
 * delivered, or untouched with `peek`), or with no items after the bounded
 * timeout.
 */
export async function waitForInbox(ctx: HubContext, caller: Caller, input: WaitInput, signal?: AbortSignal): Promise<WaitResult> {
  const parsed = parseInput(WaitInputSchema, input);
  const max = ctx.config.inbox.maxWaitTimeoutMs;
  const timeout = parsed.timeout_ms ?? ctx.config.inbox.waitTimeoutMs;
  if (timeout > max) {
    throw new ParleyError('INVALID_INPUT', `Invalid timeout_ms: ${timeout} is over the hub's maximum wait of ${max} ms. Wait at most ${max} ms and call again.`, {
      field: 'timeout_ms',
    });
  }
  const inboxInput = parsed.limit === undefined ? {} : { limit: parsed.limit };
  const answer = { peek: parsed.peek === true };
  const peek = readInbox(ctx, caller, inboxInput, { peek: true });
  if (peek.items.some((i) => i.wakes)) return { ...(answer.peek ? peek : readInbox(ctx, caller, inboxInput, answer)), timedOut: false };
  if (timeout === 0 || signal?.aborted) return { items: [], more: false, timedOut: timeout === 0 };

  const outcome = await untilWaking(ctx, caller, timeout, signal);
  if (outcome === 'closed') throw new ParleyError('HUB_CLOSED', 'The hub shut down during the wait; reconnect and wait again.');
  if (outcome !== 'woke') return { items: [], more: false, timedOut: outcome === 'timeout' };
  return { ...readInbox(ctx, caller, inboxInput, answer), timedOut: false };
}

/**
 * Resolves when a waking item for the participant is posted ("woke"), after
 * `timeoutMs` ("timeout"), when `signal` aborts ("aborted") or when the hub
 * shuts down ("closed"). It listens on the live bus: nothing is polled. The
 * caller checks the inbox first, in the same turn, so nothing posted before
 * the listener is in place is missed.
 */
export function untilWaking(ctx: HubContext, caller: Caller, timeoutMs: number, signal?: AbortSignal): Promise<'woke' | 'timeout' | 'aborted' | 'closed'> {
  if (signal?.aborted) return Promise.resolve('aborted');
  const me = caller.participant.id;
  const chatOpen = chatOpenFor(ctx.config, caller.participant.profile);
  return new Promise((resolve) => {
    let done = false;
    let timer: NodeJS.Timeout | undefined = undefined;
    let unlisten: () => void = () => undefined;
    const finish = (outcome: 'woke' | 'timeout' | 'aborted' | 'closed'): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      unlisten();
      signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const onAbort = (): void => finish('aborted');
    // A bus already closed calls back at once: `finish` is ready for it.
    unlisten = ctx.bus.listen(
      caller.session.id,
      (item: LiveItem) => {
        if (item.kind !== 'event') return;
        const thread = ctx.state.threads.get(item.event.thread);
        // Nothing of a channel whose access policy does not let the participant read it wakes them.
        if (!thread || !mayRead(ctx, thread, me)) return;
        // The participant's choice as it is now: changing it during a wait applies to that wait.
        const placement = placementOf(thread, item.event, me, item.targets.get(me), chatOpen, wakeOnFor(ctx.config, caller.participant.profile));
        if (placement?.wakes) finish('woke');
      },
      () => finish('closed'),
    );
    if (done) {
      unlisten();
      return;
    }
    timer = setTimeout(() => finish('timeout'), timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
