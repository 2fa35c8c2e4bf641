import { HOOK_CONTEXT_MAX_CHARS, HOOK_MAX_ITEMS } from '../config/defaults.js';
import { parseInput } from '../errors/parley-error.js';
import { AgentHookInputSchema, type AgentHookInput, type AgentHookResult } from '../schema/agent-hook.js';
import type { PresenceState } from '../schema/inputs.js';
import type { HubContext } from './context.js';
import { hookContextText } from '../format/context-text.js';
import { readInbox } from './inbox.js';
import { untilWaking } from './inbox-wait.js';
import { inject } from './context-items.js';
import { announcePresence, holdPresence } from './presence-hold.js';
import type { Caller } from './records.js';

/**
 * What an agent CLI's hook asks of the hub (`parley hook`), one request per
 * hook run. A tool run or a prompt shows the agent thinking and returns its
 * new waking inbox items as context, each once (injected). At a stop, new
 * items keep the agent going (block); an agent configured to stay available
 * (agents.stayAvailable) waits, listening, up to agents.stayAvailableSeconds
 * for one; a stop that says not to wait (a coordinator run's) is let through.
 * Stops blocked in a row are capped (agents.maxStopContinuations) per client
 * session, counted again once a stop is let through or a session starts or
 * ends — not from a prompt: Gemini CLI fires its BeforeAgent again for each
 * continuation, and Cursor has no prompt hook — so a hook can never keep an
 * agent going forever. A session's end shows the agent
 * offline unless another live connection holds it.
 */
export async function agentHook(ctx: HubContext, caller: Caller, input: AgentHookInput, signal?: AbortSignal): Promise<AgentHookResult> {
  const parsed = parseInput(AgentHookInputSchema, input);
  const me = caller.participant.id;
  // A client that names no session of its own is one session.
  const clientSession = parsed.session ?? '';
  switch (parsed.event) {
    case 'session-start':
      ctx.stopContinuations.reset(me, clientSession);
      return injectNow(ctx, caller);
    case 'prompt':
      report(ctx, caller, 'thinking');
      return injectNow(ctx, caller);
    case 'tool':
      report(ctx, caller, 'thinking');
      return injectNow(ctx, caller);
    case 'session-end':
      ctx.stopContinuations.reset(me, clientSession);
      endActivity(ctx, caller);
      return { injected: 0 };
    case 'stop':
      return stop(ctx, caller, clientSession, parsed, signal);
  }
}

async function stop(
  ctx: HubContext,
  caller: Caller,
  clientSession: string,
  input: { stop_hook_active?: boolean; loop_count?: number; wait?: boolean },
  signal?: AbortSignal,
): Promise<AgentHookResult> {
  const me = caller.participant.id;
  // The larger of the hub's count and the client's: either may have been lost (a hub restart, a client that does not say).
  const inARow = Math.max(ctx.stopContinuations.count(me, clientSession), input.loop_count ?? 0, input.stop_hook_active ? 1 : 0);
  if (input.wait === false || inARow >= ctx.config.agents.maxStopContinuations) return letThrough(ctx, caller, clientSession);
  let result = await injectNow(ctx, caller);
  if (result.injected === 0 && staysAvailable(ctx, caller)) {
    report(ctx, caller, 'listening');
    const release = holdPresence(ctx, caller, 'wait');
    try {
      // Checked in the same turn as the listener starts, so nothing posted since the injection is missed.
      const waking = readInbox(ctx, caller, {}, { peek: true }).items.some((item) => item.wakes);
      const outcome = waking ? 'woke' : await untilWaking(ctx, caller, ctx.config.agents.stayAvailableSeconds * 1000, signal);
      if (outcome === 'woke' && !signal?.aborted && !ctx.lifecycle.closing) result = await injectNow(ctx, caller);
    } finally {
      release();
    }
  }
  if (result.injected === 0) return letThrough(ctx, caller, clientSession);
  ctx.stopContinuations.blocked(me, clientSession);
  report(ctx, caller, 'thinking');
  return { ...result, block: true };
}

/** The agent stops, ending its run of blocked stops; new items wait in the inbox for its next turn. */
function letThrough(ctx: HubContext, caller: Caller, clientSession: string): AgentHookResult {
  ctx.stopContinuations.reset(caller.participant.id, clientSession);
  endActivity(ctx, caller);
  return { injected: 0 };
}

/** The new waking items, each once, as context text (nothing when none is new). */
async function injectNow(ctx: HubContext, caller: Caller): Promise<AgentHookResult> {
  const me = caller.participant.id;
  // A heavy read like any inbox read: in the participant's turn, and counted in flight for a clean shutdown.
  const { items, waiting } = await ctx.lifecycle.track(
    ctx.reads.run(me, () => {
      const injected = inject(ctx, caller, { limit: HOOK_MAX_ITEMS });
      return { items: injected.items, waiting: injected.waiting && { count: injected.waiting.count, atLeast: injected.waiting.atLeast === true } };
    }),
  );
  if (items.length === 0) return { injected: 0 };
  return { injected: items.length, text: hookContextText(caller.participant.handle, items, waiting, HOOK_CONTEXT_MAX_CHARS) };
}

function staysAvailable(ctx: HubContext, caller: Caller): boolean {
  const { stayAvailable, stayAvailableSeconds } = ctx.config.agents;
  const handle = caller.participant.handle.toLowerCase();
  return stayAvailableSeconds > 0 && stayAvailable.some((entry) => entry === '*' || entry.toLowerCase() === handle);
}

/** What the agent is doing, as its hook says, shown for the presence TTL. */
function report(ctx: HubContext, caller: Caller, state: PresenceState): void {
  const presence = ctx.presence.report(caller.session.id, caller.participant, state, ctx.config.presence.ttlSeconds * 1000);
  if (presence) ctx.bus.publish({ kind: 'presence', session: caller.session.id, presence });
}

/** The agent is idle or gone: its declared state again, or offline without a live connection (then it leaves its meetings). */
function endActivity(ctx: HubContext, caller: Caller): void {
  const presence = ctx.presence.endActivity(caller.session.id, caller.participant.id);
  if (presence) announcePresence(ctx, caller.session.id, presence);
}
