/**
 * The relevance check as the loop runs it: asked for (`relevance` "always",
 * or above a number of items), under its own token budget
 * (relevanceBudget), and forgiving — a check that cannot run (its budget
 * spent, an error) or whose answer cannot be read keeps every item.
 */

import { AGENT_RELEVANCE_BUDGET_TOKENS } from '../config/defaults.js';
import type { ContextItem } from '../schema/views.js';
import { tokensOf } from './budget.js';
import type { LoopParts } from './loop-parts.js';
import { checkRelevance } from './relevance-check.js';
import type { SubagentResult } from './subagent-result.js';

/** The items and results a check kept, and those it took without giving them to the model. */
export interface RelevanceSplit {
  items: ContextItem[];
  results: SubagentResult[];
  irrelevant: ContextItem[];
  irrelevantResults: SubagentResult[];
}

/** The loop's relevance check, with the tokens it has spent. */
export class RelevanceFilter {
  readonly #parts: LoopParts;
  /** The tokens the checks spent (their own budget, apart from the loop's). */
  #tokens = 0;

  constructor(parts: LoopParts) {
    this.#parts = parts;
  }

  get tokens(): number {
    return this.#tokens;
  }

  /** Whether `count` items (and results) call for a check. */
  wanted(count: number): boolean {
    const mode = this.#parts.options.relevance ?? 'never';
    return mode === 'always' || (typeof mode === 'object' && count > mode.above);
  }

  /** Splits the items by a relevance check; a check that cannot run (its budget spent, an error) or cannot be read keeps them all. */
  async split(system: string, items: ContextItem[], results: SubagentResult[]): Promise<RelevanceSplit> {
    const { options, budget, history, stopping } = this.#parts;
    const all = { items, results, irrelevant: [] as ContextItem[], irrelevantResults: [] as SubagentResult[] };
    const limit = options.relevanceBudget?.tokens ?? AGENT_RELEVANCE_BUDGET_TOKENS;
    const relevant = items.length + results.length;
    if (this.#tokens >= limit) {
      this.#parts.emit({ type: 'relevance', relevant, irrelevant: [], irrelevantResults: [], tokens: 0, skipped: 'budget' });
      return all;
    }
    let verdict;
    try {
      verdict = await checkRelevance({
        model: options.relevanceModel ?? options.model,
        system,
        history: history.messages,
        items,
        results,
        ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
        signal: budget.callSignal(stopping),
      });
    } catch (error) {
      // At the deadline the loop stops (reason "time"); stopped, it stops.
      if (stopping.aborted || budget.timeSpent()) throw error;
      this.#parts.emit({ type: 'relevance', relevant, irrelevant: [], irrelevantResults: [], tokens: 0, skipped: 'error' });
      return all;
    }
    const tokens = tokensOf(verdict.usage);
    this.#tokens += tokens;
    const chosen = verdict.relevant;
    if (!chosen) {
      this.#parts.emit({ type: 'relevance', relevant, irrelevant: [], irrelevantResults: [], tokens, skipped: 'unparseable' });
      return all;
    }
    const keep = { items: items.filter((_, i) => chosen.has(i + 1)), results: results.filter((_, i) => chosen.has(items.length + i + 1)) };
    const split = {
      ...keep,
      irrelevant: items.filter((_, i) => !chosen.has(i + 1)),
      irrelevantResults: results.filter((_, i) => !chosen.has(items.length + i + 1)),
    };
    this.#parts.emit({ type: 'relevance', relevant: keep.items.length + keep.results.length, irrelevant: split.irrelevant, irrelevantResults: split.irrelevantResults, tokens });
    return split;
  }
}
