/**
 * The subagent result: what a finished subagent leaves in its parent's inbox.
 * It is High priority and wakes the parent. A cancelled subagent leaves nothing
 * (the parent chose to drop it).
 */

import { jsonForModel, nameForModel, quoted } from '../util/peer-text.js';

export type SubagentMode = 'spawn' | 'fork';

/** `stopped`: the parent's token budget ran out, or the parent stopped, before the task was done. */
export type SubagentStatus = 'running' | 'completed' | 'failed' | 'cancelled' | 'stopped';

export interface SubagentResult {
  subagent_id: string;
  task: string;
  status: Exclude<SubagentStatus, 'running' | 'cancelled'>;
  /** The subagent's final answer (its last text), or the error for a failed one. */
  result: string;
  /** The start of it, for lists and logs. */
  summary: string;
}

export const SUBAGENT_RESULTS_TITLE = 'Subagent results';

/**
 * The block of finished subagents' results a turn is given (before the chat:
 * they are High priority). Each answer is quoted like peer text: a subagent
 * may repeat what it read from others, which must not pass for the chat block.
 */
export function subagentResultsBlock(results: readonly SubagentResult[]): string {
  const lines = [`${SUBAGENT_RESULTS_TITLE} (your own workers, finished; each answer quoted with ">"):`];
  for (const r of results) lines.push(`[subagent ${nameForModel(r.subagent_id)}] ${r.status}: task ${jsonForModel(r.task)}\n${quoted(r.result)}`);
  return lines.join('\n');
}
