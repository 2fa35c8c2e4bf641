/**
 * The agent's run loop, over one hub. Each round it drains what woke it — the
 * hub's waking items (the hub applies the wake rules and the participant's
 * wakeOn; muted threads never wake it) and its subagents' results — by
 * priority; with nothing to do it listens, waiting on the hub without
 * spending anything. With something, an optional relevance check takes the
 * noise, then a turn (turn.ts). Presence follows it: thinking while the model
 * runs, listening while it waits, offline at the end. It stops at its budget,
 * when stopped, after AGENT_MAX_CONSECUTIVE_FAILURES model calls or hub reads
 * failed in a row, or at once when the hub refuses the participant for good
 * (its key not in the roster in force). A hub that goes away is no failure:
 * the loop links again (hub-linking.ts) and goes on.
 */

import type { ToolSet } from 'ai';
import type { HubConnection } from '../client/hub-connection.js';
import { AGENT_MAX_CONSECUTIVE_FAILURES, AGENT_MAX_HISTORY_MESSAGES, AGENT_WAIT_MS } from '../config/defaults.js';
import { ParleyError } from '../errors/parley-error.js';
import { promptAddendum } from '../format/agent-prompts.js';
import { ChatFeed, type ChatBatch } from '../middleware/chat-feed.js';
import { chatToolMatcher } from '../middleware/chat-only-turn.js';
import type { HubLink } from '../middleware/hub-link.js';
import { DEFAULT_MAX_NEW_MESSAGES } from '../middleware/options.js';
import type { PresenceState } from '../schema/inputs.js';
import { relinkAfter, type Linked } from './hub-linking.js';
import { hubAway, outOfRoster } from './hub-refusal.js';
import { byPriority } from './inbox-text.js';
import type { LoopParts, Session, Stop, TurnOutcome } from './loop-parts.js';
import { homeToolSettings, hubToolSet } from './parley-tools.js';
import type { RelevanceFilter } from './relevance-filter.js';
import type { SubagentResult } from './subagent-result.js';
import { subagentTools } from './subagent-tools.js';
import type { Subagents } from './subagents.js';
import { runTurn } from './turn.js';
import { shorterWait } from './wait-limit.js';

/** The rounds of one agent over its hub, from the first link until the loop stops. */
export class InboxLoop {
  readonly #parts: LoopParts;
  readonly #subagents: Subagents;
  readonly #relevance: RelevanceFilter;
  readonly #isChatTool: (name: string) => boolean;
  /** Aborts the current wait on the hub (a result landed, or the loop stops). */
  #wake: AbortController | undefined;
  /** The current link to the hub and the connection that keeps the agent present there (none while the hub is away). */
  #link: HubLink | undefined;
  #connection: HubConnection | undefined;
  /** Set when the hub was found away (a read, a wait, a presence update, a commit): the loop links again before going on. */
  #away: Error | undefined;
  /** The longest wait the hub takes (lowered when it says its maximum is shorter). */
  #waitMs: number;

  constructor(parts: LoopParts, subagents: Subagents, relevance: RelevanceFilter, linked: Linked) {
    this.#parts = parts;
    this.#subagents = subagents;
    this.#relevance = relevance;
    this.#isChatTool = chatToolMatcher(parts.options.chatTools);
    this.#waitMs = parts.options.waitMs ?? AGENT_WAIT_MS;
    this.#link = linked.link;
    this.#connection = linked.connection;
  }

  /** Ends the wait under way: something landed in the local inbox, or the loop stops. */
  wake(): void {
    this.#wake?.abort();
  }

  /** Runs rounds until the loop stops; resolves with why. */
  async run(): Promise<Stop> {
    const { budget, stopping } = this.#parts;
    let session = this.#session(this.#link!);
    let failures = 0;
    for (;;) {
      if (stopping.aborted) return { reason: 'stopped', message: 'Stopped.' };
      const over = budget.exceeded(true);
      if (over) return over;
      if (this.#away) {
        this.#unlink();
        const back = await relinkAfter(this.#parts, this.#away);
        if ('stop' in back) return back.stop;
        this.#link = back.link;
        this.#connection = back.connection;
        this.#away = undefined;
        session = this.#session(back.link);
        continue;
      }
      let outcome: TurnOutcome;
      try {
        const batch = await session.feed.peek();
        // The feed found the hub away (it says so through its hubAway hook, and gives nothing).
        if (this.#away) continue;
        const results = this.#parts.results.splice(0);
        if (!batch && results.length === 0) {
          await this.#waitForInbox(session.link);
          failures = 0;
          continue;
        }
        this.#parts.emit({ type: 'woke', items: batch?.items ?? [], subagentResults: results });
        outcome = await this.#round(session, batch, results);
      } catch (error) {
        if (stopping.aborted || budget.timeSpent()) continue;
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
      this.#parts.emit({ type: 'error', error: outcome.failed, consecutive: failures });
      this.#parts.log(`parley: agent @${session.link.participant.handle}: ${outcome.failed.message} (${failures} of ${AGENT_MAX_CONSECUTIVE_FAILURES} failures in a row); what woke it comes again.`);
      if (failures >= AGENT_MAX_CONSECUTIVE_FAILURES) {
        return { reason: 'error', message: `${failures} model calls or hub reads failed in a row; the last: ${outcome.failed.message}` };
      }
    }
  }

  /** Leaves the hub: presence offline (if still linked), then the connection and the link closed. */
  async end(): Promise<void> {
    if (this.#link) await this.#presence(this.#link, 'offline');
    this.#unlink();
  }

  #unlink(): void {
    this.#connection?.close();
    this.#link?.close();
    this.#connection = undefined;
    this.#link = undefined;
  }

  #session(link: HubLink): Session {
    const { options, history } = this.#parts;
    // The hub decides what reaches a participant without chat (requests, responses): the loop takes whatever it answers.
    const feed = new ChatFeed(
      () => Promise.resolve({ ...link, chat: true }),
      options.maxNewMessages ?? DEFAULT_MAX_NEW_MESSAGES,
      this.#parts.log,
      () => (this.#away ??= new ParleyError('HUB_CLOSED', `The hub at ${link.api.url} did not answer, or refused the token.`)),
    );
    const tools: ToolSet = {
      ...hubToolSet(link, homeToolSettings(options.home)),
      ...options.tools,
      ...subagentTools(this.#subagents, () => this.#parts.context ?? history.messages),
    };
    const system = [options.system, link.chat ? promptAddendum(link.participant.handle) : undefined].filter(Boolean).join('\n\n');
    return { link, feed, tools, system };
  }

  /** Nothing to do: listening, waiting on the hub (no budget spent) until something wakes it, a result lands, the loop stops or time runs out. */
  async #waitForInbox(link: HubLink): Promise<void> {
    const { budget, stopping } = this.#parts;
    const timeout = Math.min(this.#waitMs, budget.remainingMs());
    if (timeout === 0) return;
    await this.#presence(link, 'listening');
    // A result that landed since the drain wakes it at once; one landing from here on aborts the wait.
    if (this.#parts.results.length > 0 || stopping.aborted || this.#away) return;
    const wake = new AbortController();
    this.#wake = wake;
    this.#parts.emit({ type: 'waiting', timeoutMs: timeout });
    try {
      await link.api.wait({ timeout_ms: timeout, peek: true }, AbortSignal.any([wake.signal, stopping]));
    } catch (error) {
      if (wake.signal.aborted || stopping.aborted) return;
      const shorter = shorterWait(error, timeout);
      if (shorter === undefined) throw error;
      this.#parts.log(`parley: agent @${link.participant.handle}: the hub waits at most ${shorter} ms (${(error as Error).message}); waiting that long from now on.`);
      this.#waitMs = shorter;
    } finally {
      this.#wake = undefined;
    }
  }

  /** One round with something in the inbox: the relevance check, if asked for, then a turn on what is relevant. */
  async #round(session: Session, batch: ChatBatch | undefined, results: SubagentResult[]): Promise<TurnOutcome> {
    const { link, feed } = session;
    const { options, history } = this.#parts;
    await this.#presence(link, 'thinking');
    const dropped = history.trim(options.maxHistoryMessages ?? AGENT_MAX_HISTORY_MESSAGES);
    if (dropped > 0) this.#parts.log(`parley: agent @${link.participant.handle} dropped its ${dropped} oldest turn(s) from its history (maxHistoryMessages).`);
    // By priority from here on: the check numbers them in the order the turn is given them.
    let items = byPriority(batch?.items ?? []);
    if (this.#relevance.wanted(items.length + results.length)) {
      const judged = await this.#relevance.split(session.system, items, results);
      if (judged.irrelevant.length + judged.irrelevantResults.length > 0) {
        const what = [...judged.irrelevant.map((i) => `${i.id} from @${i.from}`), ...judged.irrelevantResults.map((r) => `subagent ${r.subagent_id}`)].join(', ');
        this.#parts.log(`parley: agent @${link.participant.handle} took ${judged.irrelevant.length + judged.irrelevantResults.length} item(s) without giving them to the model (not relevant): ${what}`);
      }
      items = judged.items;
      results = judged.results;
      if (items.length === 0 && results.length === 0) {
        // Nothing relevant: taken all the same, so it does not wake the loop again.
        if (batch) await feed.commit(batch);
        return {};
      }
    }
    return runTurn(this.#parts, session, this.#isChatTool, { first: batch, items, results });
  }

  /** Presence follows the loop; a refused update is said in the log and the loop goes on (finding the hub away, if it is). */
  async #presence(link: HubLink, state: PresenceState): Promise<void> {
    try {
      await link.api.setPresence({ state });
    } catch (error) {
      if (hubAway(error) && state !== 'offline') this.#away ??= error;
      this.#parts.log(`parley: agent @${link.participant.handle} could not set its presence to ${state}: ${(error as Error).message}`);
    }
  }
}
