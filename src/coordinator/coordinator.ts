/**
 * The coordinator (automation as a visible participant): for each participant
 * with an adapter in `coordinator.agents`, when something asks for its answer
 * and no session of its own is open, it runs the adapter with the new events on
 * stdin and posts the output as that participant, in that thread. One run at a
 * time per participant; what comes in during a run is taken by the next. Runs
 * are bounded: a loop guard, a cap per hour, a timeout, and a token per run
 * that ends with it. Its queue is the participant's own hub-kept inbox and
 * thread cursors: a stopped coordinator misses nothing, and what a run has
 * taken is never taken again (after a restart neither).
 */

import { ParleyError } from '../errors/parley-error.js';
import type { HomeLock } from '../home/home-lock.js';
import { createSilentLogger, type Logger } from '../util/logger.js';
import { adapterFor } from './adapters.js';
import { acquireCoordinatorLock } from './coordinator-lock.js';
import type { AgentState, CoordinatorConfig, SessionState } from './coordinator-state.js';
import type { HubAccess } from './hub-access.js';
import { NoticeBoard, unmentioned, type Notice } from './notices.js';
import { takeTurn, type TurnDeps, type TurnResult } from './participant-turn.js';
import { RunGate } from './run-gate.js';

export type { CoordinatorConfig } from './coordinator-state.js';
export type { TurnResult } from './participant-turn.js';

export interface CoordinatorOptions {
  hubAccess: HubAccess;
  config: CoordinatorConfig;
  logger?: Logger;
  /** The environment adapters inherit (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** The clock that decides whether a thread's ttl has run out (epoch ms). */
  now?: () => number;
}

export type NoticeListener = (notice: Notice & { session: string }) => void;
export type TurnListener = (turn: { session: string; handle: string; result: TurnResult }) => void;

export class Coordinator {
  readonly #hub: HubAccess;
  readonly #config: CoordinatorConfig;
  readonly #logger: Logger;
  readonly #sessions: SessionState[] = [];
  readonly #stopping = new AbortController();
  readonly #noticeListeners = new Set<NoticeListener>();
  readonly #turnListeners = new Set<TurnListener>();
  /** What each participant's turn takes from the coordinator. */
  readonly #turnDeps: TurnDeps;
  /** This home's one coordinator is this one while it runs. */
  #lock: HomeLock | undefined;

  private constructor(options: CoordinatorOptions) {
    this.#hub = options.hubAccess;
    this.#config = options.config;
    this.#logger = options.logger ?? createSilentLogger();
    const now = options.now ?? Date.now;
    this.#turnDeps = {
      hub: this.#hub,
      config: this.#config,
      env: options.env ?? process.env,
      logger: this.#logger,
      now,
      gate: new RunGate(this.#config, now, this.#logger),
      stopping: this.#stopping.signal,
      notice: (session, notice) => this.#notice(session, notice),
    };
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
        const result = await takeTurn(this.#turnDeps, session, agent);
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
}

function notAnAgentError(handle: string, kind: string): ParleyError {
  const key = `coordinator.agents.${handle}`;
  return new ParleyError(
    'CONFIG_INVALID',
    `Invalid config key "${key}": ${handle} is a ${kind} on this hub, not an agent; the coordinator answers only for agents (it would speak as that ${kind}). Remove it from coordinator.agents.`,
    { field: key },
  );
}
