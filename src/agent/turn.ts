/**
 * One turn of the agent loop: model calls one step at a time until one calls no
 * tool, or maxStepsPerTurn. Before each call after the first, what arrived
 * since is peeked and given as the last message; it joins the history, and is
 * taken on the hub, only once the call succeeded. After a step whose tool calls
 * were all chat, the question reminder opens the next call's system prompt.
 */

import { AGENT_MAX_STEPS_PER_TURN } from '../config/defaults.js';
import { QUESTION_REMINDER } from '../format/agent-prompts.js';
import type { ChatBatch } from '../middleware/chat-feed.js';
import { chatOnly } from '../middleware/chat-only-turn.js';
import type { ContextItem } from '../schema/views.js';
import type { TokenUsage } from './agent-events.js';
import { inboxText } from './inbox-text.js';
import type { LoopParts, Session, Stop, TurnOutcome } from './loop-parts.js';
import { modelStep, userText } from './model-step.js';
import type { SubagentResult } from './subagent-result.js';

/** What a turn starts with: the batch that woke the loop (if from the hub) and the items and results the turn is given. */
export interface TurnInput {
  first: ChatBatch | undefined;
  items: ContextItem[];
  results: SubagentResult[];
}

/** Runs one turn of the session's model on what woke the loop; says how it ended. */
export async function runTurn(parts: LoopParts, session: Session, isChatTool: (name: string) => boolean, input: TurnInput): Promise<TurnOutcome> {
  const { options, budget, history, stopping } = parts;
  const { feed, tools, system } = session;
  const { first, items } = input;
  let { results } = input;
  const turn = budget.turns + 1;
  parts.emit({ type: 'turn-start', turn, items, subagentResults: results });
  const maxSteps = options.maxStepsPerTurn ?? AGENT_MAX_STEPS_PER_TURN;
  const before = { ...budget.usage };
  let batch = first;
  let text = inboxText(items, results, first?.waiting);
  let chatOnlyBefore = false;
  let steps = 0;
  while (steps < maxSteps) {
    if (steps > 0) {
      batch = await feed.peek();
      results = parts.results.splice(0);
      text = inboxText(batch?.items ?? [], results, batch?.waiting);
    }
    const given = text === undefined ? [] : [userText(text)];
    const messages = [...history.messages, ...given];
    parts.context = messages;
    let out;
    try {
      out = await modelStep({
        model: options.model,
        // The question reminder opens the system prompt after a chat-only step.
        system: chatOnlyBefore ? `${QUESTION_REMINDER}\n\n${system}` : system,
        messages,
        tools,
        ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
        signal: budget.callSignal(stopping),
      });
    } catch (error) {
      // Nothing given to the failed call is taken: the hub's items stay pending, the results go back to the inbox.
      parts.results.unshift(...results);
      if (stopping.aborted) return { stop: { reason: 'stopped', message: 'Stopped during a model call; what it was given comes again.' } };
      const late = budget.timeSpent() ? budget.exceeded(false) : undefined;
      if (late) return endTurn(parts, turn, steps, before, late);
      return { failed: error as Error };
    } finally {
      parts.context = undefined;
    }
    if (steps === 0) budget.turns = turn;
    history.add([...given, ...out.messages], steps === 0);
    steps++;
    const tokens = budget.spend(out.usage);
    if (batch) await feed.commit(batch);
    chatOnlyBefore = chatOnly(out.toolCalls, isChatTool);
    parts.emit({ type: 'step', turn, step: steps, toolCalls: out.toolCalls, tokens, injected: (batch?.items.length ?? 0) + results.length });
    batch = undefined;
    results = [];
    const over = budget.exceeded(false);
    if (over) return endTurn(parts, turn, steps, before, over);
    if (out.toolCalls.length === 0) break;
  }
  // The turn limit is checked when the loop comes round, before it drains again.
  return endTurn(parts, turn, steps, before, undefined);
}

/** Says the turn ended, with what it spent. */
function endTurn(parts: LoopParts, turn: number, steps: number, before: TokenUsage, stop: Stop | undefined): TurnOutcome {
  const now = parts.budget.usage;
  const usage = { inputTokens: now.inputTokens - before.inputTokens, outputTokens: now.outputTokens - before.outputTokens, totalTokens: now.totalTokens - before.totalTokens };
  parts.emit({ type: 'turn-end', turn, steps, usage });
  return stop ? { stop } : {};
}
