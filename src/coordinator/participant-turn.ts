/**
 * One participant's turn: finds the thread with the oldest trigger in its
 * inbox (without taking anything), and, if it has no live session of its own,
 * takes that thread's new events and answers them — each request by a run of
 * its own, the rest of the thread by one run — once steering, the loop guard
 * and the run cap allow it.
 */

import { COORDINATOR_INBOX_LIMIT, MAX_READ_LIMIT } from '../config/defaults.js';
import type { ParleyEvent } from '../schema/event.js';
import type { ParticipantKind } from '../schema/participant.js';
import type { ThreadDetail } from '../schema/views.js';
import type { Logger } from '../util/logger.js';
import { runOnce } from './adapter-run.js';
import type { AgentState, CoordinatorConfig, SessionState } from './coordinator-state.js';
import type { HubAccess } from './hub-access.js';
import { deepest, threadDepth, triggerDepth } from './loop-guard.js';
import { countOf, idList, threadLabel, type Notice } from './notices.js';
import type { RunGate } from './run-gate.js';
import { refusalFor } from './steering-gate.js';
import { triggerOf, type Trigger, type TriggerKind } from './triggers.js';

/**
 * How one participant's turn ended: nothing asked for it, it was left to its
 * own live session, or the coordinator took a thread's new events; or it was
 * woken while a turn of it was under way (`deferred`: one run at a time, so it
 * looks again when that turn ends).
 */
export type TurnResult = 'nothing' | 'live' | 'taken' | 'deferred';

/** What a turn takes from the coordinator. */
export interface TurnDeps {
  hub: HubAccess;
  config: CoordinatorConfig;
  /** The environment adapters inherit. */
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** The clock that decides whether a thread's ttl has run out (epoch ms). */
  now: () => number;
  /** The loop guard and the run cap. */
  gate: RunGate;
  /** Aborted when the coordinator stops: no further run starts, the one under way is killed. */
  stopping: AbortSignal;
  /** Posts a notice in the session's coordinator channel. */
  notice(session: SessionState, notice: Notice): Promise<void>;
}

/** The session's participants as a turn needs them: the kind of an author (by handle), the handle of an id. */
interface People {
  kindOf(handle: string): ParticipantKind | undefined;
  handleOf(id: string): string;
}

/** One turn for one participant: nothing, left to its own session, or a thread taken and answered. */
export async function takeTurn(deps: TurnDeps, session: SessionState, agent: AgentState): Promise<Exclude<TurnResult, 'deferred'>> {
  const { api } = agent.caller;
  const peek = await api.peek({ limit: COORDINATOR_INBOX_LIMIT });
  if (peek.items.length === 0) return 'nothing';
  const people = await peopleOf(agent);
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
    if (!triggerOf(item.event, readerOf(agent), detail, people.kindOf(item.event.author))) continue;
    asking.push(item.event);
    if (!target || item.event.seq < target.seq) target = { thread: item.thread.id, seq: item.event.seq };
  }
  if (!target) return 'nothing';
  if (await hasOwnSession(agent)) return 'live';
  const thread = target.thread;
  await answerThread(deps, session, agent, { thread, asking: asking.filter((e) => e.thread === thread), people });
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
async function answerThread(deps: TurnDeps, session: SessionState, agent: AgentState, target: { thread: string; asking: ParleyEvent[]; people: People }): Promise<void> {
  const { thread, asking, people } = target;
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
    const kind = triggerOf(event, readerOf(agent), detail, people.kindOf(event.author));
    if (kind) found.push({ event, kind });
  }
  if (found.length === 0) return;
  // The thread up to the newest trigger, to count the agents' turns that led to each.
  const newestSeq = Math.max(...found.map((f) => f.event.seq));
  const history = (await api.history({ thread, before: newestSeq + 1, limit: MAX_READ_LIMIT })).events;
  const triggers: Trigger[] = found.map(({ event, kind }) => ({
    event,
    kind,
    depth: Math.max(triggerDepth(event, runDepthAt(session, event)), threadDepth(history, event, people.kindOf, session.coordinatorId)),
  }));
  await api.ack({ ids: triggers.map((t) => t.event.id) });
  const where = threadLabel(detail.thread);
  const kind = people.kindOf(handle);
  if (kind !== 'agent') {
    await deps.notice(session, {
      kind: 'refused',
      handle,
      text: `${handle} not run for ${countOf(triggers)} in ${where} (${idList(triggers)}): ${handle} is ${kind === undefined ? 'no longer registered' : `a ${kind}, not an agent`}, and the coordinator answers only for agents; remove it from coordinator.agents.`,
    });
    return;
  }
  const refusal = refusalFor(detail, handle, kind, deps.now());
  if (refusal) {
    await deps.notice(session, {
      kind: 'refused',
      handle,
      text: `${handle} not run for ${countOf(triggers)} in ${where} (${idList(triggers)}): ${refusal.says}.`,
    });
    return;
  }
  // A request gets its own run and its own response; the rest of the thread is answered by one reply.
  const units = [...triggers.filter((t) => t.kind === 'request').map((t) => [t]), triggers.filter((t) => t.kind !== 'request')].filter((u) => u.length > 0);
  const gated = { agentId: agent.id, caller: agent.caller, detail, notice: (notice: Notice) => deps.notice(session, notice) };
  for (const unit of units) {
    if (deps.stopping.aborted) return;
    const allowed = await deps.gate.admit(gated, unit);
    if (allowed.length > 0) await runUnit(deps, session, agent, { detail, events, unit: allowed, depth: deepest(allowed), people });
  }
}

async function runUnit(deps: TurnDeps, session: SessionState, agent: AgentState, run: { detail: ThreadDetail; events: ParleyEvent[]; unit: Trigger[]; depth: number; people: People }): Promise<void> {
  const runDeps = {
    url: deps.hub.url,
    home: deps.hub.home,
    env: deps.env,
    timeoutSeconds: deps.config.timeoutSeconds,
    maxOutputChars: deps.config.maxOutputChars,
    signal: deps.stopping,
    logger: deps.logger,
    notice: (notice: Notice) => deps.notice(session, notice),
  };
  await runOnce(runDeps, agent, { session: session.name, detail: run.detail, events: run.events, unit: run.unit, depth: run.depth, handleOf: run.people.handleOf });
}

/** Whether the participant has a session of its own open (an MCP connection, a live stream, a wait). */
async function hasOwnSession(agent: AgentState): Promise<boolean> {
  const presence = (await agent.caller.api.who()).find((p) => p.participant === agent.id);
  return presence !== undefined && presence.connection !== 'offline';
}

/** The depth of the run of `event`'s author that was under way when it was posted, if it was one of ours. */
function runDepthAt(session: SessionState, event: ParleyEvent): number | undefined {
  const author = session.agents.find((a) => a.id === event.from);
  const run = author?.lastRun;
  if (!run || event.ts < run.startedAt || (run.endedAt !== undefined && event.ts > run.endedAt)) return undefined;
  return run.depth;
}

function readerOf(agent: AgentState): { id: string; handle: string } {
  return { id: agent.id, handle: agent.caller.handle };
}

async function peopleOf(agent: AgentState): Promise<People> {
  const all = await agent.caller.api.participants();
  const kinds = new Map(all.map((p) => [p.handle.toLowerCase(), p.profile.kind]));
  const handles = new Map(all.map((p) => [p.id, p.handle]));
  return { kindOf: (handle) => kinds.get(handle.toLowerCase()), handleOf: (id) => handles.get(id) ?? id };
}
