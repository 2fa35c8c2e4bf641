/**
 * What runAgent takes: how to reach the hub (ParleyOptions), the model and
 * the agent's own tools, and the limits of the loop. Checked once, up front:
 * a bad option is INVALID_INPUT naming it.
 */

import type { LanguageModel, ToolSet } from 'ai';
import { z } from 'zod';
import { DEFAULT_MAX_WAIT_TIMEOUT_MS } from '../config/defaults.js';
import { ParleyError, parseInput } from '../errors/parley-error.js';
import { ParleyOptionsSchema, type ParleyOptions } from '../middleware/options.js';
import type { AgentEvent } from './agent-events.js';

/** When the relevance check runs: never, always, or when more than `above` items wait. */
export type Relevance = 'never' | 'always' | { above: number };

export interface AgentOptions extends ParleyOptions {
  /** The AI SDK model the loop runs (an object such as `openai('gpt-5')`, or a gateway model id). */
  model: LanguageModel;
  /** The agent's own tools (AI SDK tools), beside Parley's hub tools and the subagent tools. */
  tools?: ToolSet;
  /** The agent's own system prompt; Parley's addendum follows it. */
  system?: string;
  /** Where the loop stops: total tokens of all its model calls (subagents included), turns, or wall-clock milliseconds. */
  budget?: { tokens?: number; turns?: number; ms?: number };
  /** Whether a turn first asks which of its items are relevant: never (default), always, or when more than `above` items wait. */
  relevance?: Relevance;
  /** The tokens all relevance checks may spend together (default AGENT_RELEVANCE_BUDGET_TOKENS). */
  relevanceBudget?: { tokens?: number };
  /** The model for relevance checks (default: `model`). */
  relevanceModel?: LanguageModel;
  /** The model subagents run (default: `model`). */
  subagentModel?: LanguageModel;
  /** The tools subagents get (default: `tools`); never Parley's hub tools. */
  subagentTools?: ToolSet;
  /** Model calls per turn at most (default AGENT_MAX_STEPS_PER_TURN). */
  maxStepsPerTurn?: number;
  /** The history kept before a turn, in messages at most (default AGENT_MAX_HISTORY_MESSAGES): the oldest whole turns are dropped first. */
  maxHistoryMessages?: number;
  /**
   * How long one wait on the hub lasts at most (default AGENT_WAIT_MS, at
   * most the hub's default maximum wait); the loop waits again until
   * something wakes it. A hub configured with a shorter maximum is waited on
   * for that maximum instead.
   */
  waitMs?: number;
  /** The AI SDK's retries of a failed model call (default: the SDK's). */
  maxRetries?: number;
  /** Aborting it stops the loop (reason "stopped"). */
  signal?: AbortSignal;
  /** Every step of the loop, as it happens (for logs and tests). */
  onEvent?: (event: AgentEvent) => void;
}

const isFunction = (value: unknown): boolean => typeof value === 'function';
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** A model: an AI SDK model object (it has doGenerate) or a gateway model id. */
const ModelSchema = z.custom<LanguageModel>(
  (value) => (typeof value === 'string' && value.length > 0) || (isObject(value) && isFunction(value.doGenerate)),
  'must be an AI SDK language model (an object with doGenerate, e.g. openai("gpt-5")) or a model id string',
);
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const ToolSetSchema = z.record(
  z.string().regex(TOOL_NAME, 'must be 1-64 letters, digits, "_" or "-" (what every LLM API accepts)'),
  z.custom<ToolSet[string]>((value) => isObject(value), 'must be an AI SDK tool (tool({ description, inputSchema, execute }))'),
);
const PositiveInt = z.number().int().min(1);

export const AgentOptionsSchema = ParleyOptionsSchema.extend({
  model: ModelSchema,
  tools: ToolSetSchema.optional(),
  system: z.string().optional(),
  budget: z.strictObject({ tokens: PositiveInt.optional(), turns: PositiveInt.optional(), ms: PositiveInt.optional() }).optional(),
  relevance: z
    .union([z.literal('never'), z.literal('always'), z.strictObject({ above: z.number().int().min(0) })], {
      error: 'must be "never", "always" or { above: N } (check when more than N items wait)',
    })
    .optional(),
  relevanceBudget: z.strictObject({ tokens: PositiveInt.optional() }).optional(),
  relevanceModel: ModelSchema.optional(),
  subagentModel: ModelSchema.optional(),
  subagentTools: ToolSetSchema.optional(),
  maxStepsPerTurn: z.number().int().min(1).max(1000).optional(),
  maxHistoryMessages: PositiveInt.optional(),
  waitMs: z
    .number()
    .int()
    .min(1)
    .max(DEFAULT_MAX_WAIT_TIMEOUT_MS, `must be at most ${DEFAULT_MAX_WAIT_TIMEOUT_MS} ms (the hub's longest wait, inbox.maxWaitTimeoutMs); the loop waits again after each`)
    .optional(),
  maxRetries: z.number().int().min(0).max(10).optional(),
  signal: z.custom<AbortSignal>((value) => value instanceof AbortSignal, 'must be an AbortSignal').optional(),
  onEvent: z.custom<(event: AgentEvent) => void>(isFunction, 'must be a function (event) => void').optional(),
});

/**
 * The options, checked. The agent's own tools may not take the names of the
 * tools Parley gives it, and each must run by itself (an `execute`, no
 * `needsApproval`): the loop has no one to run or approve a call, and a call
 * left without its result would break every later call's history.
 */
export function agentOptions(options: AgentOptions, reserved: readonly string[]): AgentOptions {
  parseInput(AgentOptionsSchema, options);
  for (const field of ['tools', 'subagentTools'] as const) {
    for (const [name, tool] of Object.entries(options[field] ?? {})) {
      const invalid = (why: string) => new ParleyError('INVALID_INPUT', `Invalid ${field}.${name}: ${why}`, { field: `${field}.${name}` });
      if (reserved.includes(name)) throw invalid(`"${name}" is one of Parley's own tools (hub and subagent tools); rename your tool.`);
      if (!isFunction((tool as { execute?: unknown }).execute)) throw invalid('the tool has no execute function; the loop runs every tool call itself, so give it execute (input) => result.');
      if ((tool as { needsApproval?: unknown }).needsApproval) {
        throw invalid('the tool needs approval (needsApproval), which the loop cannot give; drop needsApproval, or check inside execute and return a refusal.');
      }
    }
  }
  return options;
}
