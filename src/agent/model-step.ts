/**
 * One model call with its tool calls run: the AI SDK's generateText limited
 * to a single step, so that the caller (the loop, a subagent) decides what
 * comes before the next call. The `ai` package is the user's (an optional
 * peer of Parley): it is loaded at the first call, with a clear error when
 * it is missing. Every call says `providerOptions.parley.skip`: a model
 * already wrapped with parleyMiddleware leaves the chat to the loop instead
 * of reading (and taking) the same inbox itself.
 */

import type * as AiSdk from 'ai';
import type { LanguageModel, LanguageModelUsage, ModelMessage, ToolSet } from 'ai';
import { ParleyError } from '../errors/parley-error.js';

export const SKIP_PARLEY_MIDDLEWARE = { parley: { skip: true } } as const;

export interface StepInput {
  model: LanguageModel;
  system?: string;
  messages: ModelMessage[];
  tools?: ToolSet;
  maxRetries?: number;
  maxOutputTokens?: number;
  signal?: AbortSignal;
}

export interface StepOutput {
  /** The assistant's message and the tool results, to append to the history. */
  messages: ModelMessage[];
  toolCalls: string[];
  text: string;
  usage: LanguageModelUsage;
}

type Ai = typeof AiSdk;
let ai: Promise<Ai> | undefined;

function loadAi(): Promise<Ai> {
  ai ??= import('ai').catch((error: unknown) => {
    ai = undefined;
    throw new ParleyError('INVALID_INPUT', `parley/agent runs models with the AI SDK, which could not be loaded (${(error as Error).message}); install it: npm install ai@6.`, {
      field: 'model',
    });
  });
  return ai;
}

export async function modelStep(input: StepInput): Promise<StepOutput> {
  const { generateText, stepCountIs } = await loadAi();
  const result = await generateText({
    model: input.model,
    ...(input.system ? { system: input.system } : {}),
    messages: input.messages,
    ...(input.tools && Object.keys(input.tools).length > 0 ? { tools: input.tools } : {}),
    stopWhen: stepCountIs(1),
    providerOptions: SKIP_PARLEY_MIDDLEWARE,
    ...(input.maxRetries === undefined ? {} : { maxRetries: input.maxRetries }),
    ...(input.maxOutputTokens === undefined ? {} : { maxOutputTokens: input.maxOutputTokens }),
    ...(input.signal ? { abortSignal: input.signal } : {}),
  });
  return { messages: result.response.messages, toolCalls: result.toolCalls.map((call) => call.toolName), text: result.text, usage: result.usage };
}

/** A user message with one text part. */
export function userText(text: string): ModelMessage {
  return { role: 'user', content: [{ type: 'text', text }] };
}
