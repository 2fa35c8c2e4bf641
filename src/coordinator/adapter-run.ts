/**
 * One adapter run for one participant: a token of its own for the run, the
 * participant held present and shown thinking, the adapter run with the
 * thread's new events on stdin, the token revoked as the run ends (however it
 * ends), then its answer posted and a notice of how it ended.
 */

import path from 'node:path';
import { COORDINATOR_CONTEXT_EVENTS, MAX_READ_LIMIT } from '../config/defaults.js';
import type { CoordinatorAgentConfig } from '../config/schema.js';
import type { HandleOf } from '../format/event-text.js';
import type { ParleyEvent, RequestContent } from '../schema/event.js';
import type { ThreadDetail } from '../schema/views.js';
import type { Logger } from '../util/logger.js';
import { adapterInput } from './adapter-input.js';
import { adapterEnv, adapterTimeoutMs } from './adapters.js';
import type { CoordinatedParticipant, RunToken } from './hub-access.js';
import { isCoordinatorNotice } from './notice-tag.js';
import { countOf, idList, oneLine, threadLabel, type Notice } from './notices.js';
import { reportRun } from './run-report.js';
import { runAdapter, type RunOutcome } from './runner.js';
import type { Trigger } from './triggers.js';

export interface RunDeps {
  /** The hub's address and home (the home only to keep it out of the adapter's environment). */
  url: string;
  home: string;
  env: NodeJS.ProcessEnv;
  timeoutSeconds: number;
  maxOutputChars: number;
  /** Aborted when the coordinator stops: the run is killed. */
  signal: AbortSignal;
  logger: Logger;
  notice: (notice: Notice) => Promise<void>;
}

/** The participant that runs, as the coordinator keeps it. */
export interface RunnableAgent {
  caller: CoordinatedParticipant;
  id: string;
  adapter: CoordinatorAgentConfig;
  /** The last run, for the loop guard (what the participant posts during it is one deeper). */
  lastRun?: { depth: number; startedAt: string; endedAt?: string };
}

export interface RunSpec {
  session: string;
  detail: ThreadDetail;
  /** The thread's new events, oldest first. */
  events: ParleyEvent[];
  /** What the run answers: one request, or the other triggers of the thread. */
  unit: Trigger[];
  depth: number;
  handleOf: HandleOf;
}

export async function runOnce(deps: RunDeps, agent: RunnableAgent, { session, detail, events, unit, depth, handleOf }: RunSpec): Promise<void> {
  const { api, handle } = agent.caller;
  const thread = detail.thread.id;
  const where = threadLabel(detail.thread);
  const newest = unit[unit.length - 1]!.event;
  const request = unit[0]!.kind === 'request' ? (unit[0]!.event.content as RequestContent).request_id : undefined;
  const answer = request === undefined ? { kind: 'reply' as const, to: newest.id } : { kind: 'respond' as const, requestId: request };
  const triggerIds = new Set(unit.map((t) => t.event.id));
  // The adapter sees every trigger of its run and the newest of the rest.
  const shown = events.filter((e, i) => triggerIds.has(e.id) || i >= events.length - COORDINATOR_CONTEXT_EVENTS);
  const stdin = adapterInput({ handle, session, thread: detail.thread, events: shown, triggers: triggerIds, answer, handleOf });
  const program = path.basename(agent.adapter.command[0]!);
  let credential: RunToken;
  try {
    credential = await agent.caller.runToken();
  } catch (error) {
    const why = oneLine((error as Error).message);
    await deps.notice({ kind: 'failed', handle, text: `${handle}: not run for ${countOf(unit)} in ${where} (${idList(unit)}): the hub gave no token for the run (${why}); nothing was posted.` });
    return;
  }
  let release: (() => Promise<void>) | undefined;
  // Where the thread stood before the run: what the participant posts there after this, it posted during the run.
  let lastSeqBefore = 0;
  let outcome: RunOutcome;
  try {
    lastSeqBefore = (await api.history({ thread, limit: 1 })).events.at(-1)?.seq ?? 0;
    release = await agent.caller.hold();
    await api.setPresence({ state: 'thinking', thread, note: 'answering through the coordinator' });
    await deps.notice({ kind: 'started', handle, text: `${handle}: run of ${program} started for ${countOf(unit)} in ${where} (${idList(unit)}; depth ${depth}).` });
    agent.lastRun = { depth, startedAt: new Date().toISOString() };
    const context = { url: deps.url, token: credential.token, handle, thread, session, depth: depth + 1, ...(request === undefined ? {} : { requestId: request }) };
    outcome = await runAdapter({
      argv: agent.adapter.command,
      ...(agent.adapter.cwd === undefined ? {} : { cwd: agent.adapter.cwd }),
      env: adapterEnv(deps.env, agent.adapter, context, deps.home),
      stdin,
      timeoutMs: adapterTimeoutMs(agent.adapter, deps.timeoutSeconds),
      maxOutputChars: deps.maxOutputChars,
      signal: deps.signal,
    });
    agent.lastRun.endedAt = new Date().toISOString();
  } finally {
    // The token ends with the run, however it ended: nothing the adapter left behind (a detached child) acts as the participant after it.
    await credential.revoke().catch((error: unknown) => deps.logger.warn('coordinator run token not revoked', { handle, error: String(error) }));
    await api.setPresence({ state: 'listening' }).catch((error: unknown) => deps.logger.warn('coordinator presence not set back to listening', { handle, error: String(error) }));
    await release?.();
  }
  // What the participant posted in the thread itself while it ran (an adapter with Parley's MCP tools answers through them).
  const ownPosts = outcome.kind === 'exited' ? await postedDuring(agent, thread, lastSeqBefore) : [];
  const report = await reportRun(api, { handle, where, thread, answer, depth, outcome, program, ownPosts, maxOutputChars: deps.maxOutputChars });
  await deps.notice({ ...report, handle });
}

/** Ids of the participant's own messages, requests and responses in `thread` after `afterSeq` (not its refusal notices). */
async function postedDuring(agent: RunnableAgent, thread: string, afterSeq: number): Promise<string[]> {
  const { events } = await agent.caller.api.history({ thread, after: afterSeq, limit: MAX_READ_LIMIT });
  return events
    .filter((e) => e.from === agent.id && !isCoordinatorNotice(e) && (e.type === 'message' || e.type === 'request' || e.type === 'response'))
    .map((e) => e.id);
}
