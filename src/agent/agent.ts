/**
 * The agent loop on Parley: an LLM that lives on its inbox. This file is the
 * agent as its caller holds it — run once, stop, spawn, fork and cancel
 * subagents — and the result it ends with. The rounds are the inbox loop's
 * (inbox-loop.ts), each turn's model calls are turn.ts's, linking to the hub is
 * hub-linking.ts's. It stops at its budget (tokens, turns, time — a model call
 * still running at the deadline is aborted), when stopped, after
 * AGENT_MAX_CONSECUTIVE_FAILURES model calls failed in a row, or at once when
 * the hub refuses the participant for good (its key not in the roster in force)
 * or cannot be reached at start — saying why, with reason "error".
 */

import { ParleyError } from '../errors/parley-error.js';
import { logLineOf } from '../middleware/options.js';
import type { AgentEvent, AgentResult, SubagentInfo } from './agent-events.js';
import { agentOptions, type AgentOptions } from './agent-options.js';
import { Budget } from './budget.js';
import { linkAndConnect, type Linked } from './hub-linking.js';
import { InboxLoop } from './inbox-loop.js';
import type { LoopParts, Stop } from './loop-parts.js';
import { PARLEY_TOOL_NAMES } from './parley-tools.js';
import { RelevanceFilter } from './relevance-filter.js';
import { SUBAGENT_TOOL_NAMES } from './subagent-tools.js';
import { Subagents } from './subagents.js';
import { TurnHistory } from './turn-history.js';

/** An agent loop: created with its options, run once. */
export interface Agent {
  /** Runs the loop until it stops; resolves with why. */
  run(): Promise<AgentResult>;
  /** Stops the loop: the model call under way is aborted (what it was given comes again next run), subagents are cancelled. */
  stop(): void;
  /** Starts a subagent with a fresh context (only the task); only while the loop runs (else CONFLICT: its result would reach no one). */
  spawn(task: string): SubagentInfo;
  /** Starts a subagent with a copy of the loop's history and the task; only while the loop runs. */
  fork(task: string): SubagentInfo;
  subagents(): SubagentInfo[];
  /** Cancels a running subagent (no result comes). */
  cancel(id: string): SubagentInfo;
}

export function createAgent(options: AgentOptions): Agent {
  return new AgentLoop(agentOptions(options, [...PARLEY_TOOL_NAMES, ...SUBAGENT_TOOL_NAMES]));
}

/** `createAgent(options).run()`. */
export function runAgent(options: AgentOptions): Promise<AgentResult> {
  return createAgent(options).run();
}

class AgentLoop implements Agent {
  readonly #parts: LoopParts;
  readonly #subagents: Subagents;
  readonly #relevance: RelevanceFilter;
  /** Stops everything: waits, pauses and model calls in flight. */
  readonly #stopping = new AbortController();
  /** The rounds over the hub, once linked. */
  #loop: InboxLoop | undefined;
  #state: 'ready' | 'running' | 'ended' = 'ready';

  constructor(options: AgentOptions) {
    const log = logLineOf(options.log) ?? (() => undefined);
    const parts: LoopParts = {
      options,
      budget: new Budget(options.budget),
      history: new TurnHistory(),
      results: [],
      stopping: this.#stopping.signal,
      context: undefined,
      emit: (event: AgentEvent) => {
        try {
          options.onEvent?.(event);
        } catch (error) {
          log(`parley: an onEvent listener threw on "${event.type}": ${(error as Error).message}`);
        }
      },
      log,
    };
    this.#parts = parts;
    this.#relevance = new RelevanceFilter(parts);
    this.#subagents = new Subagents({
      handle: options.handle,
      model: options.subagentModel ?? options.model,
      tools: options.subagentTools ?? options.tools ?? {},
      ...(options.system === undefined ? {} : { parentSystem: options.system }),
      budget: parts.budget,
      ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
      deliver: (result) => {
        parts.results.push(result);
        this.#loop?.wake();
      },
      emit: parts.emit,
    });
  }

  stop(): void {
    this.#stopping.abort();
    this.#loop?.wake();
  }

  spawn(task: string): SubagentInfo {
    this.#mustRun('spawn');
    return this.#subagents.start('spawn', task);
  }

  fork(task: string): SubagentInfo {
    this.#mustRun('fork');
    return this.#subagents.start('fork', task, this.#parts.context ?? this.#parts.history.messages);
  }

  subagents(): SubagentInfo[] {
    return this.#subagents.list();
  }

  cancel(id: string): SubagentInfo {
    return this.#subagents.cancel(id);
  }

  /** A subagent's result lands in the running loop's inbox: with no loop running, it would reach no one. */
  #mustRun(what: 'spawn' | 'fork'): void {
    if (this.#state === 'running') return;
    const why = this.#state === 'ready' ? 'has not started yet; call run() first' : 'has stopped; create another agent and run it';
    throw new ParleyError('CONFLICT', `Cannot ${what} a subagent: the agent loop of @${this.#parts.options.handle} ${why} (a subagent's result goes to the running loop's inbox).`);
  }

  async run(): Promise<AgentResult> {
    if (this.#state !== 'ready') {
      const why = this.#state === 'running' ? 'is already running' : 'has already run';
      throw new ParleyError('CONFLICT', `The agent loop of @${this.#parts.options.handle} ${why}; create another agent to run another loop.`);
    }
    this.#state = 'running';
    const { signal } = this.#parts.options;
    const onAbort = (): void => this.stop();
    // A signal aborted before the loop started fires no event: it is read here.
    if (signal?.aborted) this.stop();
    else signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await this.#run();
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.#state = 'ended';
    }
  }

  async #run(): Promise<AgentResult> {
    const { options, budget } = this.#parts;
    budget.start();
    if (this.#stopping.signal.aborted) return this.#result({ reason: 'stopped', message: 'Stopped before it started.' }, options.handle);
    let linked: Linked;
    try {
      linked = await linkAndConnect(options);
    } catch (error) {
      // An option the hub finds wrong (a token it does not know) names it, as bad options do: run() rejects.
      // The hub's refusal of the participant (not in the roster), or no hub at all, is how this run ends.
      if (!(error instanceof ParleyError) || error.field !== undefined) throw error;
      return this.#result({ reason: 'error', message: `Could not link @${options.handle} to the hub: ${error.message}` }, options.handle);
    }
    const loop = new InboxLoop(this.#parts, this.#subagents, this.#relevance, linked);
    this.#loop = loop;
    let stop: Stop;
    try {
      this.#parts.emit({ type: 'started', handle: linked.link.participant.handle });
      stop = await loop.run();
    } catch (error) {
      stop = { reason: 'error', message: `The loop failed: ${(error as Error).message}` };
    } finally {
      // No subagent starts from here on: its result would reach no one.
      this.#state = 'ended';
      await this.#subagents.cancelAll();
      await loop.end();
    }
    return this.#result(stop, linked.link.participant.handle);
  }

  #result(stop: Stop, handle: string): AgentResult {
    const { budget } = this.#parts;
    const result: AgentResult = {
      ...stop,
      turns: budget.turns,
      usage: { ...budget.usage },
      relevanceTokens: this.#relevance.tokens,
      subagents: this.#subagents.list(),
    };
    this.#parts.log(`parley: agent @${handle} stopped (${result.reason}): ${result.message} ${result.turns} turns, ${result.usage.totalTokens} tokens.`);
    this.#parts.emit({ type: 'stopped', result });
    return result;
  }
}
