/**
 * The agent loop's budget: spent only by model calls (waiting and receiving
 * cost nothing). Tokens are the sum of every model call's usage, the parent's
 * and its subagents'; turns are counted as they start; time is a wall-clock
 * deadline that also bounds each wait.
 */

import type { LanguageModelUsage } from 'ai';
import type { StopReason, TokenUsage } from './agent-events.js';

/** The loop's limits: tokens, turns and wall-clock ms; one left out is no limit. */
export interface BudgetLimits {
  tokens?: number;
  turns?: number;
  ms?: number;
}

/** What the loop and its subagents have spent, held against the limits. */
export class Budget {
  readonly usage: TokenUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  turns = 0;
  readonly #limits: BudgetLimits;
  #deadline = Number.POSITIVE_INFINITY;

  constructor(limits: BudgetLimits = {}) {
    this.#limits = limits;
  }

  /** The clock starts when the loop does. */
  start(now = Date.now()): void {
    if (this.#limits.ms !== undefined) this.#deadline = now + this.#limits.ms;
  }

  /** Adds one model call's usage; returns the tokens it counted. */
  spend(usage: LanguageModelUsage): number {
    const input = usage.inputTokens ?? 0;
    const output = usage.outputTokens ?? 0;
    const total = usage.totalTokens ?? input + output;
    this.usage.inputTokens += input;
    this.usage.outputTokens += output;
    this.usage.totalTokens += total;
    return total;
  }

  tokensSpent(): boolean {
    return this.#limits.tokens !== undefined && this.usage.totalTokens >= this.#limits.tokens;
  }

  /** Milliseconds left before the deadline (Infinity without one). */
  remainingMs(now = Date.now()): number {
    return Math.max(0, this.#deadline - now);
  }

  /** Whether the time budget has run out. */
  timeSpent(now = Date.now()): boolean {
    return this.#limits.ms !== undefined && this.remainingMs(now) === 0;
  }

  /**
   * The signal a model call runs under: `stop`, and the deadline with a time
   * budget — a call still running then is aborted, so no model call (the
   * loop's, a relevance check's, a subagent's) outlasts the budget.
   */
  callSignal(stop: AbortSignal): AbortSignal {
    if (this.#deadline === Number.POSITIVE_INFINITY) return stop;
    return AbortSignal.any([stop, AbortSignal.timeout(this.remainingMs())]);
  }

  /** The limit reached, if any, with a sentence saying so. `withTurns`: between turns (in a turn, its own count is not over). */
  exceeded(withTurns: boolean): { reason: StopReason; message: string } | undefined {
    const { tokens, turns, ms } = this.#limits;
    if (tokens !== undefined && this.usage.totalTokens >= tokens) {
      return { reason: 'tokens', message: `Token budget spent: ${this.usage.totalTokens} of ${tokens} tokens used.` };
    }
    if (turns !== undefined && withTurns && this.turns >= turns) {
      return { reason: 'turns', message: `Turn budget spent: ${this.turns} of ${turns} turns taken.` };
    }
    if (ms !== undefined && this.remainingMs() === 0) return { reason: 'time', message: `Time budget spent: ${ms} ms have passed.` };
    return undefined;
  }
}

/** Tokens one call counted (for events and subagents' own tallies). */
export function tokensOf(usage: LanguageModelUsage): number {
  return usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
}
