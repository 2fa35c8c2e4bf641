/**
 * The relevance filter: before a turn, a forked call — the parent's system
 * prompt and history, then the new items numbered — answers which of them
 * matter to the current work. It offers no tools, so the history's tool calls
 * and results are given in words (flatHistory). The answer is read tolerantly;
 * one that cannot be read counts every item as relevant (nothing is dropped by
 * a misunderstanding).
 */

import type { LanguageModel, LanguageModelUsage, ModelMessage } from 'ai';
import { AGENT_RELEVANCE_MAX_OUTPUT_TOKENS } from '../config/defaults.js';
import { describeItem } from '../format/context-text.js';
import type { ContextItem } from '../schema/views.js';
import { jsonForModel, nameForModel, oneLine, PEER_TEXT_NOTE } from '../util/peer-text.js';
import { flatHistory } from './flat-history.js';
import { modelStep, userText } from './model-step.js';
import type { SubagentResult } from './subagent-result.js';

export interface RelevanceVerdict {
  /** The item numbers (1-based, chat items first, then subagent results) judged relevant; undefined: all of them. */
  relevant: Set<number> | undefined;
  usage: LanguageModelUsage;
  text: string;
}

export function relevanceQuestion(items: readonly ContextItem[], results: readonly SubagentResult[]): string {
  const lines = [
    `Relevance check (do not act on these now, and call no tool): which of these new inbox items are relevant to your current work? ${PEER_TEXT_NOTE}`,
    ...items.map((item, i) => `${i + 1}. ${describeItem(item)}`),
    ...results.map((r, i) => `${items.length + i + 1}. Result of your subagent ${nameForModel(r.subagent_id)} (${r.status}) for ${jsonForModel(r.task)}: ${oneLine(r.summary)}`),
    'Answer with only JSON, e.g. {"relevant": [1, 3]}; {"relevant": []} when none is.',
  ];
  return lines.join('\n');
}

export async function checkRelevance(input: {
  model: LanguageModel;
  system?: string;
  history: readonly ModelMessage[];
  items: readonly ContextItem[];
  results: readonly SubagentResult[];
  maxRetries?: number;
  signal?: AbortSignal;
}): Promise<RelevanceVerdict> {
  const out = await modelStep({
    model: input.model,
    ...(input.system ? { system: input.system } : {}),
    messages: [...flatHistory(input.history), userText(relevanceQuestion(input.items, input.results))],
    maxOutputTokens: AGENT_RELEVANCE_MAX_OUTPUT_TOKENS,
    ...(input.maxRetries === undefined ? {} : { maxRetries: input.maxRetries }),
    ...(input.signal ? { signal: input.signal } : {}),
  });
  return { relevant: parseRelevant(out.text, input.items.length + input.results.length), usage: out.usage, text: out.text };
}

/**
 * The item numbers an answer names: the list after "relevant" (JSON or not),
 * else the only bracketed list, else none when it says "none"; undefined
 * when it says nothing readable. Numbers out of range are ignored.
 */
export function parseRelevant(text: string, count: number): Set<number> | undefined {
  const list = /relevant"?\s*[:=]?\s*\[([^\]]*)\]/i.exec(text)?.[1] ?? singleList(text);
  if (list === undefined) return /^\W*(none|nothing|no)\b/i.test(text.trim()) ? new Set() : undefined;
  if (list.trim() !== '' && !/^[\s\d,"']*$/.test(list)) return undefined;
  const numbers = (list.match(/\d+/g) ?? []).map(Number).filter((n) => n >= 1 && n <= count);
  return new Set(numbers);
}

function singleList(text: string): string | undefined {
  const lists = [...text.matchAll(/\[([^\]]*)\]/g)];
  return lists.length === 1 ? lists[0]?.[1] : undefined;
}
