import type { ModelMessage, ToolSet } from 'ai';
import {
  AGENT_HUB_RETRY_FIRST_MS,
  AGENT_HUB_RETRY_MAX_MS,
  AGENT_MAX_CONSECUTIVE_FAILURES,
  AGENT_MAX_HISTORY_MESSAGES,
  AGENT_MAX_STEPS_PER_TURN,
  AGENT_RELEVANCE_BUDGET_TOKENS,
  AGENT_WAIT_MS,
} from '../config/defaults.js';
import type { HubConnection } from '../client/hub-connection.js';
import { ParleyError } from '../errors/parley-error.js';
import { QUESTION_REMINDER, promptAddendum } from '../format/agent-prompts.js';
import type { ContextItem } from '../schema/views.js';
import { ChatFeed, type ChatBatch } from '../middleware/chat-feed.js';
import { chatOnly, chatToolMatcher } from '../middleware/chat-only-turn.js';
import { linkToHub, type HubLink } from '../middleware/hub-link.js';
import { DEFAULT_MAX_NEW_MESSAGES, logLineOf } from '../middleware/options.js';
import type { PresenceState } from '../schema/inputs.js';
import type { AgentEvent, AgentResult, StopReason, SubagentInfo } from './agent-events.js';
import { agentOptions, type AgentOptions } from './agent-options.js';
import { Budget, tokensOf } from './budget.js';
import { hubAway, outOfRoster } from './hub-refusal.js';
import { byPriority, inboxText } from './inbox-text.js';
import { modelStep, userText } from './model-step.js';
import { PARLEY_TOOL_NAMES, homeToolSettings, hubToolSet } from './parley-tools.js';
import { checkRelevance } from './relevance-check.js';
import type { SubagentResult } from './subagent-result.js';
import { SUBAGENT_TOOL_NAMES, subagentTools } from './subagent-tools.js';
import { Subagents } from './subagents.js';
import { TurnHistory } from './turn-history.js';
import { shorterWait } from './wait-limit.js';

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
 * offline at the end. It stops at its budget (tokens, turns, time — a model
 * call still running at the deadline is aborted), when stopped, after
 * AGENT_MAX_CONSECUTIVE_FAILURES model calls failed in a row, or at once when
 * the hub refuses the participant for good (its key not in the roster in
 * force) or cannot be reached at start — saying why, with reason "error".
 * A hub that goes away (stopped, restarted on another port, the token
 * refused) is no failure: the loop pauses, backing off, and links again as
 * it first did (the home's hub.lock.json says where the hub now serves).
 */
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

type Stop = { reason: StopReason; message: string };
/** How a turn ended: normally, at a limit, or with a failed model call. */
type TurnOutcome = { stop?: Stop; failed?: Error };
/** What the loop works with over one link to the hub (made again when the hub comes back). */
interface Session {
  link: HubLink;
  feed: ChatFeed;
  tools: ToolSet;
  system: string;
}

class AgentLoop implements Agent {
  readonly #options: AgentOptions;
  readonly #budget: Budget;
  readonly #subagents: Subagents;
  readonly #isChatTool: (name: string) => boolean;
  readonly #log: (line: string) => void;
  /** Stops everything: waits, pauses and model calls in flight. */
  readonly #stopping = new AbortController();
  /** The loop's own history: what each turn was given and what the model did. */
  readonly #history = new TurnHistory();
  /** The local inbox: finished subagents' results, High priority. */
  readonly #results: SubagentResult[] = [];
  /** Aborts the current wait on the hub (a result landed, or the loop stops). */
  #wake: AbortController | undefined;
  /** The messages of the model call under way (what a fork made during it copies). */
  #context: readonly ModelMessage[] | undefined;
  #state: 'ready' | 'running' | 'ended' = 'ready';
  #relevanceTokens = 0;
  /** The current link to the hub and the connection that keeps the agent present there (none while the hub is away). */
  #link: HubLink | undefined;
  #connection: HubConnection | undefined;
  /** Set when the hub was found away (a read, a wait, a presence update, a commit): the loop links again before going on. */
  #away: Error | undefined;
  /** The longest wait the hub takes (lowered when it says its maximum is shorter). */
  #waitMs: number;

  constructor(options: AgentOptions) {
    this.#options = options;
    this.#budget = new Budget(options.budget);
    this.#waitMs = options.waitMs ?? AGENT_WAIT_MS;
    this.#isChatTool = chatToolMatcher(options.chatTools);
    this.#log = logLineOf(options.log) ?? (() => undefined);
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
  }

  stop(): void {
    this.#stopping.abort();
    this.#wake?.abort();
  }

  spawn(task: string): SubagentInfo {
    this.#mustRun('spawn');
    return this.#subagents.start('spawn', task);
  }

  fork(task: string): SubagentInfo {
    this.#mustRun('fork');
    return this.#subagents.start('fork', task, this.#context ?? this.#history.messages);
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
    throw new ParleyError('CONFLICT', `Cannot ${what} a subagent: the agent loop of @${this.#options.handle} ${why} (a subagent's result goes to the running loop's inbox).`);
  }

  async run(): Promise<AgentResult> {
    if (this.#state !== 'ready') {
      const why = this.#state === 'running' ? 'is already running' : 'has already run';
      throw new ParleyError('CONFLICT', `The agent loop of @${this.#options.handle} ${why}; create another agent to run another loop.`);
    }
    this.#state = 'running';
    const { signal } = this.#options;
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
    this.#budget.start();
    if (this.#stopping.signal.aborted) return this.#result({ reason: 'stopped', message: 'Stopped before it started.' }, this.#options.handle);
    let link: HubLink;
    try {
      link = await linkToHub(this.#options);
      this.#connection = await link.api.connect().catch((error: unknown) => {
        link.close();
        throw error;
      });
    } catch (error) {
      // An option the hub finds wrong (a token it does not know) names it, as bad options do: run() rejects.
      // The hub's refusal of the participant (not in the roster), or no hub at all, is how this run ends.
      if (!(error instanceof ParleyError) || error.field !== undefined) throw error;
      return this.#result({ reason: 'error', message: `Could not link @${this.#options.handle} to the hub: ${error.message}` }, this.#options.handle);
    }
    this.#link = link;
    let stop: Stop;
    try {
      this.#emit({ type: 'started', handle: link.participant.handle });
      stop = await this.#loop(link);
    } catch (error) {
      stop = { reason: 'error', message: `The loop failed: ${(error as Error).message}` };
    } finally {
      // No subagent starts from here on: its result would reach no one.
      this.#state = 'ended';
      await this.#subagents.cancelAll();
      if (this.#link) await this.#presence(this.#link, 'offline');
      this.#unlink();
    }
    return this.#result(stop, link.participant.handle);
  }

  #result(stop: Stop, handle: string): AgentResult {
    const result: AgentResult = {
      ...stop,
      turns: this.#budget.turns,
      usage: { ...this.#budget.usage },
      relevanceTokens: this.#relevanceTokens,
      subagents: this.#subagents.list(),
    };
    this.#log(`parley: agent @${handle} stopped (${result.reason}): ${result.message} ${result.turns} turns, ${result.usage.totalTokens} tokens.`);
    this.#emit({ type: 'stopped', result });
    return result;
  }

  #unlink(): void {
    this.#connection?.close();
    this.#link?.close();
    this.#connection = undefined;
    this.#link = undefined;
  }

  #session(link: HubLink): Session {
    // The hub decides what reaches a participant without chat (requests, responses): the loop takes whatever it answers.
    const feed = new ChatFeed(
      () => Promise.resolve({ ...link, chat: true }),
      this.#options.maxNewMessages ?? DEFAULT_MAX_NEW_MESSAGES,
      this.#log,
      () => (this.#away ??= new ParleyError('HUB_CLOSED', `The hub at ${link.api.url} did not answer, or refused the token.`)),
    );
    const tools: ToolSet = {
      ...hubToolSet(link, homeToolSettings(this.#options.home)),
      ...this.#options.tools,
      ...subagentTools(this.#subagents, () => this.#context ?? this.#history.messages),
    };
    const system = [this.#options.system, link.chat ? promptAddendum(link.participant.handle) : undefined].filter(Boolean).join('\n\n');
    return { link, feed, tools, system };
  }

  async #loop(first: HubLink): Promise<Stop> {
    let session = this.#session(first);
    let failures = 0;
    for (;;) {
      if (this.#stopping.signal.aborted) return { reason: 'stopped', message: 'Stopped.' };
      const over = this.#budget.exceeded(true);
      if (over) return over;
      if (this.#away) {
        const back = await this.#relink(this.#away);
        if ('stop' in back) return back.stop;
        session = this.#session(back.link);
        continue;
      }
      let outcome: TurnOutcome;
      try {
        const batch = await session.feed.peek();
        // The feed found the hub away (it says so through its hubAway hook, and gives nothing).
        if (this.#away) continue;
        const results = this.#results.splice(0);
        if (!batch && results.length === 0) {
          await this.#waitForInbox(session.link);
          failures = 0;
          continue;
        }
        this.#emit({ type: 'woke', items: batch?.items ?? [], subagentResults: results });
        outcome = await this.#round(session, batch, results);
      } catch (error) {
        if (this.#stopping.signal.aborted || this.#budget.timeSpent()) continue;
        if (hubAway(error)) {
          this.#away = error;
          continue;
        }
        outcome = { failed: error as Error };
      }
      if (outcome.stop) return outcome.stop;
      if (outOfRoster(outcome.failed)) return { reason: 'error', message: `The hub refused @${session.link.participant.handle}: ${outcome.failed.message}` };
      if (!outcome.failed) {
        failures = 0;
        continue;
      }
      failures++;
      this.#emit({ type: 'error', error: outcome.failed, consecutive: failures });
      this.#log(`parley: agent @${session.link.participant.handle}: ${outcome.failed.message} (${failures} of ${AGENT_MAX_CONSECUTIVE_FAILURES} failures in a row); what woke it comes again.`);
      if (failures >= AGENT_MAX_CONSECUTIVE_FAILURES) {
        return { reason: 'error', message: `${failures} model calls or hub reads failed in a row; the last: ${outcome.failed.message}` };
      }
    }
  }

  /**
   * The hub is away: the old link is closed (its connection would knock at
   * the old address), then, after a pause that doubles from
   * AGENT_HUB_RETRY_FIRST_MS to AGENT_HUB_RETRY_MAX_MS (never past the time
   * budget; stop() ends it), the loop links as it first did and connects anew.
   */
  async #relink(error: Error): Promise<{ stop: Stop } | { link: HubLink }> {
    const { handle } = this.#options;
    this.#unlink();
    let delay = AGENT_HUB_RETRY_FIRST_MS;
    for (let attempt = 1; ; attempt++) {
      const pause = Math.min(delay, this.#budget.remainingMs());
      this.#emit({ type: 'hub-away', error, attempt, retryInMs: pause });
      this.#log(`parley: agent @${handle}: the hub is away (${error.message}); linking again in ${pause} ms (try ${attempt}).`);
      await this.#pause(pause);
      if (this.#stopping.signal.aborted) return { stop: { reason: 'stopped', message: 'Stopped while the hub was away.' } };
      const over = this.#budget.exceeded(true);
      if (over) return { stop: over };
      try {
        const link = await linkToHub(this.#options);
        this.#connection = await link.api.connect().catch((refusal: unknown) => {
          link.close();
          throw refusal;
        });
        this.#link = link;
        this.#away = undefined;
        this.#emit({ type: 'hub-back', url: link.api.url });
        this.#log(`parley: agent @${handle} is linked to the hub again at ${link.api.url}.`);
        return { link };
      } catch (failure) {
        if (!hubAway(failure)) throw failure;
        error = failure;
        delay = Math.min(delay * 2, AGENT_HUB_RETRY_MAX_MS);
      }
    }
  }

  /** Resolves after `ms`, or at once when the loop stops. */
  #pause(ms: number): Promise<void> {
    const { signal } = this.#stopping;
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** Nothing to do: listening, waiting on the hub (no budget spent) until something wakes it, a result lands, the loop stops or time runs out. */
  async #waitForInbox(link: HubLink): Promise<void> {
    const timeout = Math.min(this.#waitMs, this.#budget.remainingMs());
    if (timeout === 0) return;
    await this.#presence(link, 'listening');
    // A result that landed since the drain wakes it at once; one landing from here on aborts the wait.
    if (this.#results.length > 0 || this.#stopping.signal.aborted || this.#away) return;
    const wake = new AbortController();
    this.#wake = wake;
    this.#emit({ type: 'waiting', timeoutMs: timeout });
    try {
      await link.api.wait({ timeout_ms: timeout, peek: true }, AbortSignal.any([wake.signal, this.#stopping.signal]));
    } catch (error) {
      if (wake.signal.aborted || this.#stopping.signal.aborted) return;
      const shorter = shorterWait(error, timeout);
      if (shorter === undefined) throw error;
      this.#log(`parley: agent @${link.participant.handle}: the hub waits at most ${shorter} ms (${(error as Error).message}); waiting that long from now on.`);
      this.#waitMs = shorter;
    } finally {
      this.#wake = undefined;
    }
  }

  /** One round with something in the inbox: the relevance check, if asked for, then a turn on what is relevant. */
  async #round(session: Session, batch: ChatBatch | undefined, results: SubagentResult[]): Promise<TurnOutcome> {
    const { link, feed } = session;
    await this.#presence(link, 'thinking');
    const dropped = this.#history.trim(this.#options.maxHistoryMessages ?? AGENT_MAX_HISTORY_MESSAGES);
    if (dropped > 0) this.#log(`parley: agent @${link.participant.handle} dropped its ${dropped} oldest turn(s) from its history (maxHistoryMessages).`);
    // By priority from here on: the check numbers them in the order the turn is given them.
    let items = byPriority(batch?.items ?? []);
    if (this.#wantsRelevance(items.length + results.length)) {
      const judged = await this.#relevant(session.system, items, results);
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
    return this.#turn(session, batch, items, results);
  }
  #wantsRelevance(count: number): boolean {
    const mode = this.#options.relevance ?? 'never';
    return mode === 'always' || (typeof mode === 'object' && count > mode.above);
  }

  /** Splits the items by a relevance check; a check that cannot run (its budget spent, an error) or cannot be read keeps them all. */
  async #relevant(system: string, items: ContextItem[], results: SubagentResult[]) {
    const all = { items, results, irrelevant: [] as ContextItem[], irrelevantResults: [] as SubagentResult[] };
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
        history: this.#history.messages,
        items,
        results,
        ...(this.#options.maxRetries === undefined ? {} : { maxRetries: this.#options.maxRetries }),
        signal: this.#budget.callSignal(this.#stopping.signal),
      });
    } catch (error) {
      // At the deadline the loop stops (reason "time"); stopped, it stops.
      if (this.#stopping.signal.aborted || this.#budget.timeSpent()) throw error;
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
  async #turn(session: Session, first: ChatBatch | undefined, items: ContextItem[], results: SubagentResult[]): Promise<TurnOutcome> {
    const { feed, tools, system } = session;
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
      const messages = [...this.#history.messages, ...given];
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
          signal: this.#budget.callSignal(this.#stopping.signal),
        });
      } catch (error) {
        // Nothing given to the failed call is taken: the hub's items stay pending, the results go back to the inbox.
        this.#results.unshift(...results);
        if (this.#stopping.signal.aborted) return { stop: { reason: 'stopped', message: 'Stopped during a model call; what it was given comes again.' } };
        const late = this.#budget.timeSpent() ? this.#budget.exceeded(false) : undefined;
        if (late) return this.#endTurn(turn, steps, before, late);
        return { failed: error as Error };
      } finally {
        this.#context = undefined;
      }
      if (steps === 0) this.#budget.turns = turn;
      this.#history.add([...given, ...out.messages], steps === 0);
      steps++;
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

  /** Presence follows the loop; a refused update is said in the log and the loop goes on (finding the hub away, if it is). */
  async #presence(link: HubLink, state: PresenceState): Promise<void> {
    try {
      await link.api.setPresence({ state });
    } catch (error) {
      if (hubAway(error) && state !== 'offline') this.#away ??= error;
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
