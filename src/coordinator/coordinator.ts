import { COORDINATOR_INBOX_LIMIT, MAX_READ_LIMIT } from '../config/defaults.js';
import type { CoordinatorConfigSchema } from '../config/schema.js';
import { ParleyError } from '../errors/parley-error.js';
import type { ParleyEvent } from '../schema/event.js';
import type { ParticipantKind } from '../schema/participant.js';
import type { ThreadDetail } from '../schema/views.js';
import { createSilentLogger, type Logger } from '../util/logger.js';
import { runOnce, type RunnableAgent } from './adapter-run.js';
import { adapterFor } from './adapters.js';
import { acquireCoordinatorLock } from './coordinator-lock.js';
import type { HomeLock } from '../home/home-lock.js';
import type { CoordinatedParticipant, HubAccess } from './hub-access.js';
import { deepest, threadDepth, triggerDepth } from './loop-guard.js';
import { NoticeBoard, countOf, idList, threadLabel, unmentioned, type Notice } from './notices.js';
import { RunGate } from './run-gate.js';
import { refusalFor } from './steering-gate.js';
import { triggerOf, type Trigger, type TriggerKind } from './triggers.js';
import type { z } from 'zod';

/**
 * The coordinator (Agent Bridge's automation, as a visible participant): for
 * each participant with an adapter in `coordinator.agents`, when something
 * asks for its answer and no session of its own is open, it runs the adapter
 * with the new events on stdin and posts the output as that participant, in
 * that thread. One run at a time per participant; what comes in during a run
 * is taken by the next. Runs are bounded: a loop guard, a cap per hour, a
 * timeout, and a token per run that ends with it. Its queue is the
 * participant's own hub-kept inbox and thread cursors: a stopped coordinator
 * misses nothing, and what a run has taken is never taken again (after a
 * restart neither).
 */
export type CoordinatorConfig = z.output<typeof CoordinatorConfigSchema>;

export interface CoordinatorOptions {
  hubAccess: HubAccess;
  config: CoordinatorConfig;
  logger?: Logger;
  /** The environment adapters inherit (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** The clock that decides whether a thread's ttl has run out (epoch ms). */
  now?: () => number;
}

/**
 * How one participant's turn ended: nothing asked for it, it was left to its
 * own live session, or the coordinator took a thread's new events; or it was
 * woken while a turn of it was under way (`deferred`: one run at a time, so it
 * looks again when that turn ends).
 */
export type TurnResult = 'nothing' | 'live' | 'taken' | 'deferred';
export type NoticeListener = (notice: Notice & { session: string }) => void;
export type TurnListener = (turn: { session: string; handle: string; result: TurnResult }) => void;

interface AgentState extends RunnableAgent {
  /** The turn loop in progress, if any (one per participant: runs never overlap). */
  draining?: Promise<void>;
  /** Woken while a turn was under way: look again when it ends. */
  again: boolean;
}

interface SessionState {
  name: string;
  coordinator: CoordinatedParticipant;
  /** The coordinator's participant id: its own notices never ask anyone to answer. */
  coordinatorId: string;
  board: NoticeBoard;
  agents: AgentState[];
  stopWatching: () => void;
  /** The coordinator is present (listening) in the session while it runs. */
  leave: () => Promise<void>;
}

interface People {
  kindOf(handle: string): ParticipantKind | undefined;
  handleOf(id: string): string;
}

export class Coordinator {
  readonly #hub: HubAccess;
  readonly #config: CoordinatorConfig;
  readonly #logger: Logger;
  readonly #env: NodeJS.ProcessEnv;
  readonly #sessions: SessionState[] = [];
  readonly #stopping = new AbortController();
  readonly #now: () => number;
  readonly #noticeListeners = new Set<NoticeListener>();
  readonly #turnListeners = new Set<TurnListener>();
  /** The loop guard and the run cap. */
  readonly #gate: RunGate;
  /** This home's one coordinator is this one while it runs. */
  #lock: HomeLock | undefined;

  private constructor(options: CoordinatorOptions) {
    this.#hub = options.hubAccess;
    this.#config = options.config;
    this.#logger = options.logger ?? createSilentLogger();
    this.#env = options.env ?? process.env;
    this.#now = options.now ?? Date.now;
    this.#gate = new RunGate(this.#config, this.#now, this.#logger);
  }

  /** Callers the coordinator and every configured participant in each session, then answers what is already waiting. */
  static async start(options: CoordinatorOptions): Promise<Coordinator> {
    const coordinator = new Coordinator(options);
    coordinator.#lock = acquireCoordinatorLock(options.hubAccess.home);
    try {
      for (const session of options.config.sessions) await coordinator.#open(session);
    } catch (error) {
      await coordinator.stop();
      throw error;
    }
    for (const session of coordinator.#sessions) coordinator.#wake(session);
    return coordinator;
  }

  /** Calls `listener` after each notice is posted (tests and the CLI's log follow the coordinator this way). */
  onNotice(listener: NoticeListener): () => void {
    this.#noticeListeners.add(listener);
    return () => this.#noticeListeners.delete(listener);
  }

  /** Calls `listener` after each participant's turn, and each wake deferred by one (what the coordinator decided, for diagnostics and tests). */
  onTurn(listener: TurnListener): () => void {
    this.#turnListeners.add(listener);
    return () => this.#turnListeners.delete(listener);
  }

  /** Stops watching, kills the adapters that run (their whole process groups), and waits for the turns to end. */
  async stop(): Promise<void> {
    this.#stopping.abort();
    for (const session of this.#sessions) session.stopWatching();
    await Promise.allSettled(this.#sessions.flatMap((s) => s.agents.flatMap((a) => a.draining ?? [])));
    await Promise.allSettled(this.#sessions.map((s) => s.leave()));
    await this.#hub.close();
    this.#lock?.release();
  }

  async #open(sessionName: string): Promise<void> {
    const { handle, channel, agents } = this.#config;
    // No kind in the profile: joining with one would turn a person who already holds the handle into an agent.
    const coordinator = await this.#hub.join(handle, sessionName, { client: 'parley', nickname: 'coordinator' });
    const me = (await coordinator.api.whoami()).participant;
    if (me.profile.kind !== 'agent') {
      throw new ParleyError(
        'CONFIG_INVALID',
        `Invalid config key "coordinator.handle": ${handle} is a ${me.profile.kind} on this hub; the coordinator speaks as itself, an agent, so give it a handle of its own.`,
        { field: 'coordinator.handle' },
      );
    }
    const session: SessionState = {
      name: sessionName,
      coordinator,
      coordinatorId: me.id,
      board: new NoticeBoard(coordinator.api, channel),
      agents: [],
      stopWatching: () => undefined,
      leave: await coordinator.hold(),
    };
    this.#sessions.push(session);
    // Only agents are answered for: the coordinator must never speak as a person (nor join one to a session as a side effect).
    const known = await coordinator.api.participants();
    for (const agentHandle of Object.keys(agents)) {
      const existing = known.find((p) => p.handle.toLowerCase() === agentHandle.toLowerCase());
      if (existing && existing.profile.kind !== 'agent') throw notAnAgentError(agentHandle, existing.profile.kind);
    }
    for (const agentHandle of Object.keys(agents)) {
      const caller = await this.#hub.join(agentHandle, sessionName);
      const { participant } = await caller.api.whoami();
      session.agents.push({ caller, id: participant.id, adapter: adapterFor(agents, agentHandle)!, again: false });
    }
    session.stopWatching = this.#hub.watch(sessionName, (participant) => {
      if (participant === undefined) return this.#wake(session);
      const agent = session.agents.find((a) => a.id === participant);
      if (agent) this.#kick(session, agent);
    });
  }

  #wake(session: SessionState): void {
    for (const agent of session.agents) this.#kick(session, agent);
  }

  #kick(session: SessionState, agent: AgentState): void {
    if (this.#stopping.signal.aborted) return;
    if (agent.draining) {
      // One run at a time: what woke it is looked at when this turn ends.
      agent.again = true;
      this.#told(session, agent, 'deferred');
      return;
    }
    agent.draining = this.#drain(session, agent).finally(() => {
      agent.draining = undefined;
    });
  }

  async #drain(session: SessionState, agent: AgentState): Promise<void> {
    let more = true;
    while (more && !this.#stopping.signal.aborted) {
      agent.again = false;
      try {
        const result = await this.#turn(session, agent);
        this.#told(session, agent, result);
        more = result === 'taken' || agent.again;
      } catch (error) {
        // The next wake tries again (the hub may be restarting).
        if (!this.#stopping.signal.aborted) this.#logger.warn('coordinator turn failed', { handle: agent.caller.handle, error: String(error) });
        more = false;
      }
    }
  }

  #told(session: SessionState, agent: AgentState, result: TurnResult): void {
    for (const listener of this.#turnListeners) listener({ session: session.name, handle: agent.caller.handle, result });
  }

  /**
   * One turn for one participant: finds the thread with the oldest trigger in
   * its inbox (without taking anything), and, if it has no live session, takes
   * that thread's new events and answers them.
   */
  async #turn(session: SessionState, agent: AgentState): Promise<TurnResult> {
    const { api } = agent.caller;
    const peek = await api.peek({ limit: COORDINATOR_INBOX_LIMIT });
    if (peek.items.length === 0) return 'nothing';
    const people = await this.#people(agent);
    const details = new Map<string, ThreadDetail>();
    let target: { thread: string; seq: number } | undefined;
    const asking: ParleyEvent[] = [];
    for (const item of peek.items) {
      if (item.event.from === agent.id || item.event.from === session.coordinatorId) continue;
      let detail = details.get(item.thread.id);
      if (!detail) {
        detail = await api.threadDetail(item.thread.id);
        details.set(item.thread.id, detail);
      }
      if (!triggerOf(item.event, this.#reader(agent), detail, people.kindOf(item.event.author))) continue;
      asking.push(item.event);
      if (!target || item.event.seq < target.seq) target = { thread: item.thread.id, seq: item.event.seq };
    }
    if (!target) return 'nothing';
    if (await this.#live(agent)) return 'live';
    const thread = target.thread;
    await this.#answerThread(session, agent, thread, asking.filter((e) => e.thread === thread), people);
    return 'taken';
  }

  /**
   * Takes the thread's new events and answers what asks for it. The
   * participant's cursor moves past what is read and each trigger is
   * acknowledged for it (durably, before anything runs), so nothing is taken
   * twice — after a restart neither. `asking` are the triggers the inbox
   * showed: a targeted one can wait in the inbox behind the thread's cursor
   * (an inbox read with a small limit leaves it so), where reading the thread
   * would not find it.
   */
  async #answerThread(session: SessionState, agent: AgentState, thread: string, asking: ParleyEvent[], people: People): Promise<void> {
    const { api, handle } = agent.caller;
    const read: ParleyEvent[] = [];
    for (;;) {
      const page = await api.readNew({ thread, limit: MAX_READ_LIMIT });
      read.push(...page.events);
      if (!page.more || page.events.length === 0) break;
    }
    const seen = new Set(read.map((e) => e.id));
    const events = [...read, ...asking.filter((e) => !seen.has(e.id))].sort((a, b) => a.seq - b.seq);
    const detail = await api.threadDetail(thread);
    const found: Array<{ event: ParleyEvent; kind: TriggerKind }> = [];
    for (const event of events) {
      if (event.from === session.coordinatorId) continue;
      const kind = triggerOf(event, this.#reader(agent), detail, people.kindOf(event.author));
      if (kind) found.push({ event, kind });
    }
    if (found.length === 0) return;
    // The thread up to the newest trigger, to count the agents' turns that led to each.
    const newestSeq = Math.max(...found.map((f) => f.event.seq));
    const history = (await api.history({ thread, before: newestSeq + 1, limit: MAX_READ_LIMIT })).events;
    const triggers: Trigger[] = found.map(({ event, kind }) => ({
      event,
      kind,
      depth: Math.max(triggerDepth(event, this.#runDepthAt(session, event)), threadDepth(history, event, people.kindOf, session.coordinatorId)),
    }));
    await api.ack({ ids: triggers.map((t) => t.event.id) });
    const where = threadLabel(detail.thread);
    const kind = people.kindOf(handle);
    if (kind !== 'agent') {
      await this.#notice(session, {
        kind: 'refused',
        handle,
        text: `${handle} not run for ${countOf(triggers)} in ${where} (${idList(triggers)}): ${handle} is ${kind === undefined ? 'no longer registered' : `a ${kind}, not an agent`}, and the coordinator answers only for agents; remove it from coordinator.agents.`,
      });
      return;
    }
    const refusal = refusalFor(detail, handle, kind, this.#now());
    if (refusal) {
      await this.#notice(session, {
        kind: 'refused',
        handle,
        text: `${handle} not run for ${countOf(triggers)} in ${where} (${idList(triggers)}): ${refusal.says}.`,
      });
      return;
    }
    // A request gets its own run and its own response; the rest of the thread is answered by one reply.
    const units = [...triggers.filter((t) => t.kind === 'request').map((t) => [t]), triggers.filter((t) => t.kind !== 'request')].filter((u) => u.length > 0);
    const gated = { agentId: agent.id, caller: agent.caller, detail, notice: (notice: Notice) => this.#notice(session, notice) };
    for (const unit of units) {
      if (this.#stopping.signal.aborted) return;
      const allowed = await this.#gate.admit(gated, unit);
      if (allowed.length > 0) await this.#run(session, agent, { detail, events, unit: allowed, depth: deepest(allowed), people });
    }
  }

  async #run(session: SessionState, agent: AgentState, run: { detail: ThreadDetail; events: ParleyEvent[]; unit: Trigger[]; depth: number; people: People }): Promise<void> {
    const deps = {
      url: this.#hub.url,
      home: this.#hub.home,
      env: this.#env,
      timeoutSeconds: this.#config.timeoutSeconds,
      maxOutputChars: this.#config.maxOutputChars,
      signal: this.#stopping.signal,
      logger: this.#logger,
      notice: (notice: Notice) => this.#notice(session, notice),
    };
    await runOnce(deps, agent, { session: session.name, detail: run.detail, events: run.events, unit: run.unit, depth: run.depth, handleOf: run.people.handleOf });
  }

  async #notice(session: SessionState, said: Notice): Promise<void> {
    const notice = { ...said, text: unmentioned(said.text) };
    try {
      await session.board.post(notice);
    } catch (error) {
      this.#logger.warn('coordinator notice not posted', { notice: notice.text, error: String(error) });
      return;
    }
    this.#logger.info(notice.text, { session: session.name });
    for (const listener of this.#noticeListeners) listener({ ...notice, session: session.name });
  }

  /** Whether the participant has a session of its own open (an MCP connection, a live stream, a wait). */
  async #live(agent: AgentState): Promise<boolean> {
    const presence = (await agent.caller.api.who()).find((p) => p.participant === agent.id);
    return presence !== undefined && presence.connection !== 'offline';
  }

  /** The depth of the run of `event`'s author that was under way when it was posted, if it was one of ours. */
  #runDepthAt(session: SessionState, event: ParleyEvent): number | undefined {
    const author = session.agents.find((a) => a.id === event.from);
    const run = author?.lastRun;
    if (!run || event.ts < run.startedAt || (run.endedAt !== undefined && event.ts > run.endedAt)) return undefined;
    return run.depth;
  }

  #reader(agent: AgentState): { id: string; handle: string } {
    return { id: agent.id, handle: agent.caller.handle };
  }

  /** The session's participants as a turn needs them: the kind of an author (by handle), the handle of an id. */
  async #people(agent: AgentState): Promise<People> {
    const all = await agent.caller.api.participants();
    const kinds = new Map(all.map((p) => [p.handle.toLowerCase(), p.profile.kind]));
    const handles = new Map(all.map((p) => [p.id, p.handle]));
    return { kindOf: (handle) => kinds.get(handle.toLowerCase()), handleOf: (id) => handles.get(id) ?? id };
  }
}

function notAnAgentError(handle: string, kind: string): ParleyError {
  const key = `coordinator.agents.${handle}`;
  return new ParleyError(
    'CONFIG_INVALID',
    `Invalid config key "${key}": ${handle} is a ${kind} on this hub, not an agent; the coordinator answers only for agents (it would speak as that ${kind}). Remove it from coordinator.agents.`,
    { field: key },
  );
}
