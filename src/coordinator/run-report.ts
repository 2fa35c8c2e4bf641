import type { Notice } from './notices.js';
import { oneLine, seconds } from './notices.js';
import type { CoordinatedApi } from './hub-access.js';
import { depthTag } from './loop-guard.js';
import type { RunOutcome } from './runner.js';

/** How one adapter run ended, and what it is to answer. */
export interface FinishedRun {
  handle: string;
  /** How notices name the thread ("#plan"). */
  where: string;
  thread: string;
  answer: { kind: 'reply'; to: string } | { kind: 'respond'; requestId: string };
  depth: number;
  outcome: RunOutcome;
  /** The adapter's program, by name. */
  program: string;
  /** What it posted in the thread itself during the run: then its output is not posted again. */
  ownPosts: string[];
  maxOutputChars: number;
}

/**
 * Posts the answer of a finished run as its participant (its output as a
 * reply tagged one deeper, or the response to its request), and returns the
 * notice that says how the run ended.
 */
export async function reportRun(api: CoordinatedApi, run: FinishedRun): Promise<Omit<Notice, 'handle'>> {
  const { handle, outcome, where } = run;
  const took = seconds(outcome.elapsedMs);
  switch (outcome.kind) {
    case 'timed-out':
      return { kind: 'timeout', text: `${handle}: run in ${where} timed out after ${took}; its process group was killed and nothing was posted.` };
    case 'stopped':
      return { kind: 'stopped', text: `${handle}: run in ${where} stopped after ${took}: the coordinator is shutting down; nothing was posted.` };
    case 'not-started':
      return { kind: 'failed', text: `${handle}: ${run.program} could not be started (${outcome.reason}); nothing was posted. Check coordinator.agents.${handle}.command.` };
    case 'failed': {
      const status = outcome.exitCode === null ? `signal ${outcome.exitSignal ?? 'unknown'}` : `exit code ${outcome.exitCode}`;
      const stderr = outcome.stderr ? ` stderr: ${oneLine(outcome.stderr)}` : '';
      return { kind: 'failed', text: `${handle}: run in ${where} failed with ${status} after ${took}; nothing was posted.${stderr}` };
    }
    case 'exited':
      break;
  }
  const text = outcome.output.trim();
  if (run.ownPosts.length > 0) {
    return {
      kind: 'finished',
      text: `${handle}: run in ${where} finished after ${took}; it posted ${run.ownPosts.join(', ')} there itself, so its output (${text === '' ? 'none' : `${text.length} characters`}) was not posted again.`,
    };
  }
  if (text === '') return { kind: 'finished', text: `${handle}: run in ${where} finished after ${took} with no output; nothing was posted.` };
  const body = outcome.cut ? `${text}\n… [cut at ${run.maxOutputChars} characters (coordinator.maxOutputChars)]` : text;
  try {
    if (run.answer.kind === 'respond') {
      await api.respond({ request_id: run.answer.requestId, status: 'Completed', text: body });
      return { kind: 'finished', text: `${handle}: run in ${where} finished after ${took}; responded to request ${run.answer.requestId} (depth ${run.depth + 1}).` };
    }
    const posted = await api.post({ thread: run.thread, text: body, reply_to: run.answer.to, tags: [depthTag(run.depth + 1)] });
    return { kind: 'finished', text: `${handle}: run in ${where} finished after ${took}; posted ${posted.id} in reply to ${run.answer.to} (depth ${run.depth + 1}).` };
  } catch (error) {
    return { kind: 'failed', text: `${handle}: run in ${where} finished after ${took}, but its answer was refused: ${oneLine((error as Error).message)}` };
  }
}
