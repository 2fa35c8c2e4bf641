import type { ModelMessage, ToolSet } from 'ai';
import { AGENT_MAX_CONSECUTIVE_FAILURES, AGENT_MAX_STEPS_PER_TURN, AGENT_RELEVANCE_BUDGET_TOKENS, AGENT_WAIT_MS } from '../config/defaults.js';
import { ParleyError } from '../errors/parley-error.js';
import { QUESTION_REMINDER, promptAddendum } from '../format/agent-prompts.js';
import type { InjectedItem } from '../hub/injection.js';
import { ChatFeed, type ChatBatch } from '../middleware/chat-feed.js';
import { chatOnly, chatToolMatcher } from '../middleware/chat-only-turn.js';
import { linkToHub, type HubLink } from '../middleware/hub-link.js';
import { DEFAULT_MAX_NEW_MESSAGES } from '../middleware/options.js';
import type { PresenceState } from '../schema/inputs.js';
import type { AgentEvent, AgentResult, StopReason, SubagentInfo } from './agent-events.js';
import { agentOptions, type AgentOptions } from './agent-options.js';
import { Budget, tokensOf } from './budget.js';
import { byPriority, inboxText } from './inbox-text.js';
import { modelStep, userText } from './model-step.js';
import { PARLEY_TOOL_NAMES, homeToolSettings, hubToolSet } from './parley-tools.js';
import { checkRelevance } from './relevance-check.js';
import type { SubagentResult } from './subagent-result.js';
import { SUBAGENT_TOOL_NAMES, subagentTools } from './subagent-tools.js';
import { Subagents } from './subagents.js';

/**
 * Meerkat's agent loop on Parley: an LLM that lives on its inbox. Each round
 * it drains what woke it — the hub's waking items (the hub applies the wake
 * rules and the participant's wakeOn; muted threads never wake it) and its
 * subagents' results — by priority; with nothing to do it listens, waiting on
 * the hub without spending anything. With something, an optional relevance
 * check takes the noise, then a turn: model calls, one step at a time, each
 * given the chat that arrived since the one before (kept in the loop's own
 * history) and taken on the hub only once that call succeeded. Presence
 * follows it: thinking while the model runs, listening while it waits,
 * offline at the end. It stops at its budget (tokens, turns, time), when
 * stopped, or after AGENT_MAX_CONSECUTIVE_FAILURES model calls failed in a
 * row — saying why.
 */
export interface Agent {
  /** Runs the loop until it stops; resolves with why. */
  run(): Promise<AgentResult>;
  /** Stops the loop: the model call under way is aborted (what it was given comes again next run), subagents are cancelled. */
  stop(): void;
  /** Starts a subagent with a fresh context (only the task). */
  spawn(task: string): SubagentInfo;
  /** Starts a subagent with a copy of the loop's history and the task. */
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

type Stop = { reason: StopReason; message: string };
/** How a turn ended: normally, at a limit, or with a failed model call. */
type TurnOutcome = { stop?: Stop; failed?: Error };

class AgentLoop implements Agent {
  readonly #options: AgentOptions;
  readonly #budget: Budget;
  readonly #subagents: Subagents;
  readonly #isChatTool: (name: string) => boolean;
  readonly #log: (line: string) => void;
  /** Stops everything: waits and model calls in flight. */
  readonly #stopping = new AbortController();
  /** The loop's own history: what each turn was given and what the model did. */
  readonly #history: ModelMessage[] = [];
  /** The local inbox: finished subagents' results, High priority. */
  readonly #results: SubagentResult[] = [];
  /** Aborts the current wait on the hub (a result landed, or the loop stops). */
  #wake: AbortController | undefined;
  /** The messages of the model call under way (what a fork made during it copies). */
  #context: readonly ModelMessage[] | undefined;
  #running = false;
  #relevanceTokens = 0;

  constructor(options: AgentOptions) {
    this.#options = options;
    this.#budget = new Budget(options.budget);
    this.#isChatTool = chatToolMatcher(options.chatTools);
    this.#log = options.log === false ? () => undefined : (options.log ?? ((line) => process.stderr.write(`${line}\n`)));
    this.#subagents = new Subagents({
      handle: options.handle,
      model: options.subagentModel ?? options.model,
      tools: options.subagentTools ?? options.tools ?? {},
      ...(options.system === undefined ? {} : { parentSystem: options.system }),
      budget: this.#budget,
      ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
      deliver: (result) => {
        this.#results.push(result);
        this.#wake?.abort();
      },
      emit: (event) => this.#emit(event),
    });
    options.signal?.addEventListener('abort', () => this.stop(), { once: true });
  }

  stop(): void {
    this.#stopping.abort();
    this.#wake?.abort();
  }

  spawn(task: string): SubagentInfo {
    return this.#subagents.start('spawn', task);
  }

  fork(task: string): SubagentInfo {
    return this.#subagents.start('fork', task, this.#context ?? this.#history);
  }

  subagents(): SubagentInfo[] {
    return this.#subagents.list();
  }

  cancel(id: string): SubagentInfo {
    return this.#subagents.cancel(id);
  }

  async run(): Promise<AgentResult> {
    if (this.#running) throw new ParleyError('CONFLICT', `The agent loop of @${this.#options.handle} is already running; create another agent to run another loop.`);
    this.#running = true;
    this.#budget.start();
    const link = await linkToHub(this.#options);
    let stop: Stop;
    const connection = await link.api.connect().catch((error: unknown) => {
      link.close();
      throw error;
    });
    try {
      this.#emit({ type: 'started', handle: link.participant.handle });
      stop = await this.#loop(link);
    } catch (error) {
      stop = { reason: 'error', message: `The loop failed: ${(error as Error).message}` };
    } finally {
      await this.#subagents.cancelAll();
      await this.#presence(link, 'offline');
      connection.close();
      link.close();
    }
    const result: AgentResult = { ...stop, turns: this.#budget.turns, usage: { ...this.#budget.usage }, subagents: this.#subagents.list() };
    this.#log(`parley: agent @${link.participant.handle} stopped (${result.reason}): ${result.message} ${result.turns} turns, ${result.usage.totalTokens} tokens.`);
    this.#emit({ type: 'stopped', result });
    return result;
  }

  async #loop(link: HubLink): Promise<Stop> {
    // The hub decides what reaches a participant without chat (requests, responses): the loop takes whatever it answers.
    const feed = new ChatFeed(() => Promise.resolve({ ...link, chat: true }), this.#options.maxNewMessages ?? DEFAULT_MAX_NEW_MESSAGES, this.#log);
    const tools: ToolSet = {
      ...hubToolSet(link, homeToolSettings(this.#options.home)),
      ...this.#options.tools,
      ...subagentTools(this.#subagents, () => this.#context ?? this.#history),
    };
    const system = [this.#options.system, link.chat ? promptAddendum(link.participant.handle) : undefined].filter(Boolean).join('\n\n');
    let failures = 0;
    for (;;) {
      if (this.#stopping.signal.aborted) return { reason: 'stopped', message: 'Stopped.' };
      const over = this.#budget.exceeded(true);
      if (over) return over;
      let outcome: TurnOutcome;
      try {
        const batch = await feed.peek();
        const results = this.#results.splice(0);
        if (!batch && results.length === 0) {
          await this.#waitForInbox(link);
          failures = 0;
          continue;
        }
        this.#emit({ type: 'woke', items: batch?.items ?? [], subagentResults: results });
        outcome = await this.#round(link, feed, tools, system, batch, results);
      } catch (error) {
        if (this.#stopping.signal.aborted) continue;
        outcome = { failed: error as Error };
      }
      if (outcome.stop) return outcome.stop;
      if (!outcome.failed) {
        failures = 0;
        continue;
      }
      failures++;
      this.#emit({ type: 'error', error: outcome.failed, consecutive: failures });
      this.#log(`parley: agent @${link.participant.handle}: ${outcome.failed.message} (${failures} of ${AGENT_MAX_CONSECUTIVE_FAILURES} failures in a row); what woke it comes again.`);
      if (failures >= AGENT_MAX_CONSECUTIVE_FAILURES) {
        return { reason: 'error', message: `${failures} model calls or hub reads failed in a row; the last: ${outcome.failed.message}` };
      }
    }
  }

  /** Nothing to do: listening, waiting on the hub (no budget spent) until something wakes it, a result lands, the loop stops or time runs out. */
  async #waitForInbox(link: HubLink): Promise<void> {
    const timeout = Math.min(this.#options.waitMs ?? AGENT_WAIT_MS, this.#budget.remainingMs());
    if (timeout === 0) return;
    await this.#presence(link, 'listening');
    // A result that landed since the drain wakes it at once; one landing from here on aborts the wait.
    if (this.#results.length > 0 || this.#stopping.signal.aborted) return;
    const wake = new AbortController();
    this.#wake = wake;
    this.#emit({ type: 'waiting', timeoutMs: timeout });
    try {
      await link.api.wait({ timeout_ms: timeout, peek: true }, AbortSignal.any([wake.signal, this.#stopping.signal]));
    } catch (error) {
      if (!wake.signal.aborted && !this.#stopping.signal.aborted) throw error;
    } finally {
      this.#wake = undefined;
    }
  }

  /** One round with something in the inbox: the relevance check, if asked for, then a turn on what is relevant. */
  async #round(link: HubLink, feed: ChatFeed, tools: ToolSet, system: string, batch: ChatBatch | undefined, results: SubagentResult[]): Promise<TurnOutcome> {
    await this.#presence(link, 'thinking');
    // By priority from here on: the check numbers them in the order the turn is given them.
    let items = byPriority(batch?.items ?? []);
    if (this.#wantsRelevance(items.length + results.length)) {
      const judged = await this.#relevant(system, items, results);
      if (judged.irrelevant.length + judged.irrelevantResults.length > 0) {
        const what = [...judged.irrelevant.map((i) => `${i.id} from @${i.from}`), ...judged.irrelevantResults.map((r) => `subagent ${r.subagent_id}`)].join(', ');
        this.#log(`parley: agent @${link.participant.handle} took ${judged.irrelevant.length + judged.irrelevantResults.length} item(s) without giving them to the model (not relevant): ${what}`);
      }
      items = judged.items;
      results = judged.results;
      if (items.length === 0 && results.length === 0) {
        // Nothing relevant: taken all the same, so it does not wake the loop again.
        if (batch) await feed.commit(batch);
        return {};
      }
    }
    return this.#turn(link, feed, tools, system, batch, items, results);
  }

  #wantsRelevance(count: number): boolean {
    const mode = this.#options.relevance ?? 'never';
    return mode === 'always' || (typeof mode === 'object' && count > mode.above);
  }

  /** Splits the items by a relevance check; a check that cannot run (its budget spent, an error) or cannot be read keeps them all. */
  async #relevant(system: string, items: InjectedItem[], results: SubagentResult[]) {
    const all = { items, results, irrelevant: [] as InjectedItem[], irrelevantResults: [] as SubagentResult[] };
    const limit = this.#options.relevanceBudget?.tokens ?? AGENT_RELEVANCE_BUDGET_TOKENS;
    const relevant = items.length + results.length;
    if (this.#relevanceTokens >= limit) {
      this.#emit({ type: 'relevance', relevant, irrelevant: [], irrelevantResults: [], tokens: 0, skipped: 'budget' });
      return all;
    }
    let verdict;
    try {
      verdict = await checkRelevance({
        model: this.#options.relevanceModel ?? this.#options.model,
        system,
        history: this.#history,
        items,
        results,
        ...(this.#options.maxRetries === undefined ? {} : { maxRetries: this.#options.maxRetries }),
        signal: this.#stopping.signal,
      });
    } catch (error) {
      if (this.#stopping.signal.aborted) throw error;
      this.#emit({ type: 'relevance', relevant, irrelevant: [], irrelevantResults: [], tokens: 0, skipped: 'error' });
      return all;
    }
    const tokens = tokensOf(verdict.usage);
    this.#relevanceTokens += tokens;
    const chosen = verdict.relevant;
    if (!chosen) {
      this.#emit({ type: 'relevance', relevant, irrelevant: [], irrelevantResults: [], tokens, skipped: 'unparseable' });
      return all;
    }
    const keep = { items: items.filter((_, i) => chosen.has(i + 1)), results: results.filter((_, i) => chosen.has(items.length + i + 1)) };
    const split = {
      ...keep,
      irrelevant: items.filter((_, i) => !chosen.has(i + 1)),
      irrelevantResults: results.filter((_, i) => !chosen.has(items.length + i + 1)),
    };
    this.#emit({ type: 'relevance', relevant: keep.items.length + keep.results.length, irrelevant: split.irrelevant, irrelevantResults: split.irrelevantResults, tokens });
    return split;
  }

  /**
   * A turn: model calls one step at a time until one calls no tool, or
   * maxStepsPerTurn. Before each call after the first, what arrived since is
   * peeked and given as the last message; it joins the history, and is taken
   * on the hub, only once the call succeeded.
   */
  async #turn(link: HubLink, feed: ChatFeed, tools: ToolSet, system: string, first: ChatBatch | undefined, items: InjectedItem[], results: SubagentResult[]): Promise<TurnOutcome> {
    const turn = this.#budget.turns + 1;
    this.#emit({ type: 'turn-start', turn, items, subagentResults: results });
    const maxSteps = this.#options.maxStepsPerTurn ?? AGENT_MAX_STEPS_PER_TURN;
    const before = { ...this.#budget.usage };
    let batch = first;
    let text = inboxText(items, results, first?.waiting);
    let chatOnlyBefore = false;
    let steps = 0;
    while (steps < maxSteps) {
      if (steps > 0) {
        batch = await feed.peek();
        results = this.#results.splice(0);
        text = inboxText(batch?.items ?? [], results, batch?.waiting);
      }
      const given = text === undefined ? [] : [userText(text)];
      const messages = [...this.#history, ...given];
      this.#context = messages;
      let out;
      try {
        out = await modelStep({
          model: this.#options.model,
          // Maestro's reminder opens the system prompt after a chat-only step.
          system: chatOnlyBefore ? `${QUESTION_REMINDER}\n\n${system}` : system,
          messages,
          tools,
          ...(this.#options.maxRetries === undefined ? {} : { maxRetries: this.#options.maxRetries }),
          signal: this.#stopping.signal,
        });
      } catch (error) {
        // Nothing given to the failed call is taken: the hub's items stay pending, the results go back to the inbox.
        this.#results.unshift(...results);
        if (this.#stopping.signal.aborted) return { stop: { reason: 'stopped', message: 'Stopped during a model call; what it was given comes again.' } };
        return { failed: error as Error };
      } finally {
        this.#context = undefined;
      }
      if (steps === 0) this.#budget.turns = turn;
      steps++;
      this.#history.push(...given, ...out.messages);
      const tokens = this.#budget.spend(out.usage);
      if (batch) await feed.commit(batch);
      chatOnlyBefore = chatOnly(out.toolCalls, this.#isChatTool);
      this.#emit({ type: 'step', turn, step: steps, toolCalls: out.toolCalls, tokens, injected: (batch?.items.length ?? 0) + results.length });
      batch = undefined;
      results = [];
      const over = this.#budget.exceeded(false);
      if (over) return this.#endTurn(turn, steps, before, over);
      if (out.toolCalls.length === 0) break;
    }
    // The turn limit is checked when the loop comes round, before it drains again.
    return this.#endTurn(turn, steps, before, undefined);
  }

  #endTurn(turn: number, steps: number, before: { inputTokens: number; outputTokens: number; totalTokens: number }, stop: Stop | undefined): TurnOutcome {
    const now = this.#budget.usage;
    const usage = { inputTokens: now.inputTokens - before.inputTokens, outputTokens: now.outputTokens - before.outputTokens, totalTokens: now.totalTokens - before.totalTokens };
    this.#emit({ type: 'turn-end', turn, steps, usage });
    return stop ? { stop } : {};
  }

  /** Presence follows the loop; a refused update is said in the log and the loop goes on. */
  async #presence(link: HubLink, state: PresenceState): Promise<void> {
    try {
      await link.api.setPresence({ state });
    } catch (error) {
      this.#log(`parley: agent @${link.participant.handle} could not set its presence to ${state}: ${(error as Error).message}`);
    }
  }

  #emit(event: AgentEvent): void {
    try {
      this.#options.onEvent?.(event);
    } catch (error) {
      this.#log(`parley: an onEvent listener threw on "${event.type}": ${(error as Error).message}`);
    }
  }
}
