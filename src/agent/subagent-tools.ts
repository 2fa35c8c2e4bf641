/**
 * The subagent tools the loop's model gets (and only it: a subagent cannot
 * start others). A fork takes the parent's context as it is at the call.
 */

import type { ModelMessage, ToolSet } from 'ai';
import { z } from 'zod';
import type { Subagents } from './subagents.js';

export const SUBAGENT_TOOL_NAMES: readonly string[] = ['subagent_spawn', 'subagent_fork', 'subagents_list', 'subagent_cancel'];

const Task = z.strictObject({
  task: z.string().min(1).max(20_000).describe('What the subagent should do and what it should return, in words.'),
});

export function subagentTools(subagents: Subagents, context: () => readonly ModelMessage[]): ToolSet {
  return {
    subagent_spawn: {
      description:
        'Starts a subagent on a task with a fresh context (it sees only the task). It works beside you with your tools but no chat; its result comes to your inbox when done. Returns its id at once.',
      inputSchema: Task,
      execute: async ({ task }: z.output<typeof Task>) => subagents.start('spawn', task),
    },
    subagent_fork: {
      description:
        'Starts a subagent on a task with a copy of your whole context so far. It works beside you with your tools but no chat; its result comes to your inbox when done. Returns its id at once.',
      inputSchema: Task,
      execute: async ({ task }: z.output<typeof Task>) => subagents.start('fork', task, context()),
    },
    subagents_list: {
      description: 'Your subagents: id, mode (spawn or fork), task, status (running, completed, failed, cancelled, stopped) and tokens spent.',
      inputSchema: z.strictObject({}),
      execute: async () => ({ subagents: subagents.list() }),
    },
    subagent_cancel: {
      description: 'Cancels a running subagent: it stops at once and its result never comes.',
      inputSchema: z.strictObject({ id: z.string().min(1).max(64).describe('The id subagent_spawn or subagent_fork returned.') }),
      execute: async ({ id }: { id: string }) => subagents.cancel(id),
    },
  };
}
