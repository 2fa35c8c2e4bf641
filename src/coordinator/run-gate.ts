/**
 * What stands between triggers and a run once steering allows it: the loop
 * guard (`coordinator.maxDepth`) and the run cap
 * (`coordinator.maxRunsPerHour`). What either refuses is said in
 * #coordinator, and to its author in the thread it wrote in, which would
 * otherwise wait for an answer that never comes.
 */

import { COORDINATOR_LOOP_NOTICE_QUIET_MS } from '../config/defaults.js';
import type { ParleyEvent } from '../schema/event.js';
import type { ThreadDetail } from '../schema/views.js';
import type { Logger } from '../util/logger.js';
import type { CoordinatedParticipant } from './hub-access.js';
import { deepest, stopsAt } from './loop-guard.js';
import { AuthorNotices, countOf, idList, threadLabel, type AuthorNotice, type Notice } from './notices.js';
import { RunCap, type CapRefusal } from './run-cap.js';
import type { Trigger } from './triggers.js';

export interface GateLimits {
  maxDepth: number;
  maxRunsPerHour: number;
}

/** The participant that would run, and where. */
export interface GatedRun {
  agentId: string;
  caller: CoordinatedParticipant;
  detail: ThreadDetail;
  /** Posts a notice in the coordinator's channel. */
  notice: (notice: Notice) => Promise<void>;
}

export class RunGate {
  readonly #cap: RunCap;
  readonly #authorNotices: AuthorNotices;

  constructor(
    private readonly limits: GateLimits,
    private readonly now: () => number,
    private readonly logger: Logger,
  ) {
    this.#cap = new RunCap(limits.maxRunsPerHour, now);
    this.#authorNotices = new AuthorNotices(now);
  }

  /** The triggers of `unit` that may start a run now (counted as one run); the others are refused, and said to be. */
  async admit(run: GatedRun, unit: Trigger[]): Promise<Trigger[]> {
    const depth = deepest(unit);
    if (stopsAt(depth, this.limits.maxDepth)) {
      await this.#refuseLoop(run, unit, depth);
      return [];
    }
    return this.#withinCap(run, unit);
  }

  async #refuseLoop(run: GatedRun, unit: Trigger[], depth: number): Promise<void> {
    const { handle } = run.caller;
    const { maxDepth } = this.limits;
    const told = await this.#tellAuthors(run, unit, (authorId) => ({
      key: `loop ${run.agentId} ${authorId} ${run.detail.thread.id}`,
      quietUntil: this.now() + COORDINATOR_LOOP_NOTICE_QUIET_MS,
      text: `${handle} will not answer this: it would be depth ${depth} of an exchange between agents, and the coordinator's loop guard stops at ${maxDepth} (coordinator.maxDepth). A human's message in the thread starts a new exchange.`,
    }));
    await run.notice({
      kind: 'refused',
      handle,
      text: `${handle} not run for ${countOf(unit)} in ${threadLabel(run.detail.thread)} (${idList(unit)}): the loop guard stops at depth ${maxDepth} (coordinator.maxDepth), and this is depth ${depth}.${toldText(told)}`,
    });
  }

  async #withinCap(run: GatedRun, unit: Trigger[]): Promise<Trigger[]> {
    const { handle } = run.caller;
    const max = this.limits.maxRunsPerHour;
    const allowed: Trigger[] = [];
    const refused = new Map<string, { refusal: CapRefusal; triggers: Trigger[] }>();
    for (const trigger of unit) {
      const author = trigger.event.from;
      const refusal = this.#cap.refusal(run.agentId, author);
      if (!refusal) allowed.push(trigger);
      else refused.set(author, { refusal, triggers: [...(refused.get(author)?.triggers ?? []), trigger] });
    }
    if (allowed.length > 0) this.#cap.record(run.agentId, allowed.map((t) => t.event.from));
    for (const { refusal, triggers } of refused.values()) {
      const until = new Date(refusal.until).toISOString();
      const spent = refusal.who === 'agent' ? `${handle} has had ${max} runs in the past hour` : `messages of ${triggers[0]!.event.author} have started ${max} runs in the past hour`;
      // Once until the cap lets a run through again, however many triggers it refuses meanwhile.
      const told = await this.#tellAuthors(run, triggers, (authorId) => ({
        key: `cap ${run.agentId} ${authorId}`,
        quietUntil: refusal.until,
        text:
          refusal.who === 'agent'
            ? `${handle} will not answer this: the coordinator runs it at most ${max} times an hour (coordinator.maxRunsPerHour), and it may run again from ${until}.`
            : `${handle} will not answer this: the coordinator starts at most ${max} runs an hour for one author's messages (coordinator.maxRunsPerHour), and yours may start one again from ${until}.`,
      }));
      await run.notice({
        kind: 'refused',
        handle,
        text: `${handle} not run for ${countOf(triggers)} in ${threadLabel(run.detail.thread)} (${idList(triggers)}): ${spent} (coordinator.maxRunsPerHour); the next may start at ${until}.${toldText(told)}`,
      });
    }
    return allowed;
  }

  /** Tells the author of each of `triggers`, in the thread, in reply to its newest one (see AuthorNotices); returns the handles told. */
  async #tellAuthors(run: GatedRun, triggers: Trigger[], noticeFor: (authorId: string) => Pick<AuthorNotice, 'key' | 'quietUntil' | 'text'>): Promise<string[]> {
    const newestByAuthor = new Map<string, ParleyEvent>();
    for (const { event } of triggers) newestByAuthor.set(event.from, event);
    const told: string[] = [];
    for (const [authorId, event] of newestByAuthor) {
      try {
        const notice = { ...noticeFor(authorId), thread: run.detail.thread.id, to: event.author, replyTo: event.id };
        if (await this.#authorNotices.tell(run.caller.api, run.caller.handle, notice)) told.push(event.author);
      } catch (error) {
        this.logger.warn('coordinator refusal not told in the thread', { handle: run.caller.handle, thread: run.detail.thread.id, error: String(error) });
      }
    }
    return told;
  }
}

function toldText(told: string[]): string {
  return told.length === 0 ? '' : ` Told ${told.join(', ')} there.`;
}
