/**
 * What the agent loop says as it goes (`onEvent`): for logs, dashboards and
 * tests, which wait on these instead of sleeping.
 */

import type { ContextItem } from '../schema/views.js';
import type { SubagentMode, SubagentResult, SubagentStatus } from './subagent-result.js';

/** Why the loop stopped. */
export type StopReason = 'tokens' | 'turns' | 'time' | 'stopped' | 'error';

/** Tokens spent by model calls (input + output, as the provider counts them). */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

export interface SubagentInfo {
  id: string;
  mode: SubagentMode;
  task: string;
  status: SubagentStatus;
  /** Tokens this subagent has spent (they count against the parent's budget). */
  tokens: number;
}

export interface AgentResult {
  reason: StopReason;
  /** Why it stopped, in a sentence. */
  message: string;
  turns: number;
  /** All model calls, subagents included (relevance checks are counted apart, in their own budget). */
  usage: TokenUsage;
  /** The tokens the relevance checks spent (their own budget, relevanceBudget). */
  relevanceTokens: number;
  subagents: SubagentInfo[];
}

export type AgentEvent =
  /** The loop is linked to the hub and present there. */
  | { type: 'started'; handle: string }
  /** Nothing to do: presence is listening and the loop waits on the hub (spending nothing) for at most timeoutMs. */
  | { type: 'waiting'; timeoutMs: number }
  /** Something is in the inbox: hub items (oldest first) and subagent results. */
  | { type: 'woke'; items: ContextItem[]; subagentResults: SubagentResult[] }
  /** A relevance check ran (or was skipped): what goes to the model and what was taken without it. */
  | { type: 'relevance'; relevant: number; irrelevant: ContextItem[]; irrelevantResults: SubagentResult[]; tokens: number; skipped?: 'budget' | 'unparseable' | 'error' }
  | { type: 'turn-start'; turn: number; items: ContextItem[]; subagentResults: SubagentResult[] }
  /** One model call of a turn finished (its tool calls ran). */
  | { type: 'step'; turn: number; step: number; toolCalls: string[]; tokens: number; injected: number }
  /** A model call (or a read of the hub) failed: nothing it was given is taken, so it comes again. `consecutive`: failures in a row. */
  | { type: 'error'; error: Error; consecutive: number }
  | { type: 'turn-end'; turn: number; steps: number; usage: TokenUsage }
  /**
   * The hub went away (stopped, restarting, the token refused): the loop
   * links again in `retryInMs` — `attempt` counts the tries — spending
   * nothing meanwhile; this is no model failure.
   */
  | { type: 'hub-away'; error: Error; attempt: number; retryInMs: number }
  /** Linked to the hub again (at `url`: a hub restarted may serve on another port). */
  | { type: 'hub-back'; url: string }
  | { type: 'subagent-start'; id: string; mode: SubagentMode; task: string }
  | { type: 'subagent-end'; id: string; status: SubagentStatus; result?: SubagentResult }
  | { type: 'stopped'; result: AgentResult };
