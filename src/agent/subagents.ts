/**
 * Subagents: ephemeral local workers. A spawned one starts from its task alone;
 * a forked one from a copy of the parent's history and the task. The copy has
 * the parent's tool calls and results in words (flatHistory): the fork's tools
 * are not the parent's. Either runs beside the parent with its own tools —
 * never Parley's hub tools, nor subagent tools: peers only ever see the parent
 * — and spends the parent's budget, stopping when its tokens are spent or its
 * time is up. Its result lands in the parent's inbox; a cancelled one leaves
 * nothing.
 */

import type { LanguageModel, ModelMessage, ToolSet } from 'ai';
import { AGENT_SUBAGENT_MAX_STEPS, AGENT_SUBAGENT_SUMMARY_CHARS } from '../config/defaults.js';
import { ParleyError } from '../errors/parley-error.js';
import type { AgentEvent, SubagentInfo } from './agent-events.js';
import { tokensOf, type Budget } from './budget.js';
import { flatHistory } from './flat-history.js';
import { modelStep, userText } from './model-step.js';
import type { SubagentMode, SubagentResult, SubagentStatus } from './subagent-result.js';

export interface SubagentDeps {
  handle: string;
  model: LanguageModel;
  tools: ToolSet;
  /** The parent's own system prompt (a fork inherits it, with the parent's context). */
  parentSystem?: string;
  budget: Budget;
  maxRetries?: number;
  /** A finished subagent's result, for the parent's inbox. */
  deliver(result: SubagentResult): void;
  emit(event: AgentEvent): void;
}

interface Running extends SubagentInfo {
  controller: AbortController;
  done: Promise<void>;
}

/** What a subagent is told about itself. */
export function subagentSystem(handle: string): string {
  return [
    `You are a subagent of @${handle}, working on one task alone.`,
    'You cannot talk to anyone: your final answer (your last message, with no tool call) is your result, and it goes back to @' + handle + '.',
    'Make that answer complete and short.',
  ].join('\n');
}

export class Subagents {
  readonly #deps: SubagentDeps;
  readonly #all = new Map<string, Running>();
  #next = 1;

  constructor(deps: SubagentDeps) {
    this.#deps = deps;
  }

  /** Starts a subagent; `history` is the parent's context for a fork. */
  start(mode: SubagentMode, task: string, history: readonly ModelMessage[] = []): SubagentInfo {
    if (typeof task !== 'string' || task.trim() === '') {
      throw new ParleyError('INVALID_INPUT', 'Invalid task: a subagent needs a task in words; say what it should do and what to return.', { field: 'task' });
    }
    const id = `sub-${this.#next++}`;
    const controller = new AbortController();
    const entry: Running = { id, mode, task, status: 'running', tokens: 0, controller, done: Promise.resolve() };
    this.#all.set(id, entry);
    this.#deps.emit({ type: 'subagent-start', id, mode, task });
    const messages = [...(mode === 'fork' ? flatHistory(history) : []), userText(`Your task: ${task}`)];
    entry.done = this.#run(entry, messages);
    return infoOf(entry);
  }

  list(): SubagentInfo[] {
    return [...this.#all.values()].map(infoOf);
  }

  /** Cancels a running subagent: it stops at once and leaves no result. */
  cancel(id: string): SubagentInfo {
    const entry = this.#all.get(id);
    if (!entry) throw new ParleyError('NOT_FOUND', `No subagent "${id}": subagents_list shows their ids.`, { field: 'id' });
    if (entry.status === 'running') this.#finish(entry, 'cancelled');
    return infoOf(entry);
  }

  /** At the parent's shutdown: every running subagent is cancelled, and its end awaited. */
  async cancelAll(): Promise<void> {
    for (const entry of this.#all.values()) if (entry.status === 'running') this.#finish(entry, 'cancelled');
    await Promise.all([...this.#all.values()].map((entry) => entry.done));
  }

  async #run(entry: Running, messages: ModelMessage[]): Promise<void> {
    const deps = this.#deps;
    const system = [subagentSystem(deps.handle), ...(entry.mode === 'fork' && deps.parentSystem ? [deps.parentSystem] : [])].join('\n\n');
    let text = '';
    try {
      for (let step = 0; step < AGENT_SUBAGENT_MAX_STEPS; step++) {
        if (deps.budget.tokensSpent()) return this.#finish(entry, 'stopped', text || "The parent's token budget was spent before the task was done.");
        const out = await modelStep({
          model: deps.model,
          system,
          messages,
          tools: deps.tools,
          ...(deps.maxRetries === undefined ? {} : { maxRetries: deps.maxRetries }),
          signal: deps.budget.callSignal(entry.controller.signal),
        });
        if (entry.status !== 'running') return;
        entry.tokens += tokensOf(out.usage);
        deps.budget.spend(out.usage);
        messages.push(...out.messages);
        text = out.text || text;
        if (out.toolCalls.length === 0) return this.#finish(entry, 'completed', text);
      }
      this.#finish(entry, 'stopped', text || `The task took more than ${AGENT_SUBAGENT_MAX_STEPS} model calls and was stopped.`);
    } catch (error) {
      if (deps.budget.timeSpent()) return this.#finish(entry, 'stopped', text || "The parent's time budget ran out before the task was done.");
      if (entry.status === 'running') this.#finish(entry, 'failed', (error as Error).message);
    }
  }

  #finish(entry: Running, status: Exclude<SubagentStatus, 'running'>, result = ''): void {
    if (entry.status !== 'running') return;
    entry.status = status;
    if (status === 'cancelled') {
      entry.controller.abort();
      this.#deps.emit({ type: 'subagent-end', id: entry.id, status });
      return;
    }
    const item: SubagentResult = { subagent_id: entry.id, task: entry.task, status, result, summary: summaryOf(result) };
    this.#deps.emit({ type: 'subagent-end', id: entry.id, status, result: item });
    this.#deps.deliver(item);
  }
}

function infoOf(entry: Running): SubagentInfo {
  return { id: entry.id, mode: entry.mode, task: entry.task, status: entry.status, tokens: entry.tokens };
}

function summaryOf(result: string): string {
  const flat = result.replace(/\s+/g, ' ').trim();
  return flat.length <= AGENT_SUBAGENT_SUMMARY_CHARS ? flat : `${flat.slice(0, AGENT_SUBAGENT_SUMMARY_CHARS - 1)}…`;
}
