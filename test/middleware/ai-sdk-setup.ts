/**
 * What the AI SDK middleware tests share: a real hub over loopback HTTP with
 * one agent, `bot`, and Parley's middleware for it, both closed after each
 * test; the addendum it adds; tools that do nothing.
 */

import { tool } from 'ai';
import { afterEach } from 'vitest';
import { z } from 'zod';
import { promptAddendum } from '../../src/format/agent-prompts.js';
import { parleyMiddleware, type ParleyOptions } from '../../src/middleware/index.js';
import { openAgentHub, type AgentHub } from '../helpers/agent-hub.js';

/** Registers the after-each cleanup in the calling test file: call it at its top level. */
export function middlewareHub(): { agentHub: (config?: object) => Promise<AgentHub>; middleware: (hub: AgentHub, logs: string[], options?: Partial<ParleyOptions>) => ReturnType<typeof parleyMiddleware> } {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return {
    async agentHub(config: object = {}): Promise<AgentHub> {
      const hub = await openAgentHub(['bot'], { config });
      cleanups.push(() => hub.close());
      return hub;
    },
    middleware(hub: AgentHub, logs: string[], options: Partial<ParleyOptions> = {}): ReturnType<typeof parleyMiddleware> {
      const mw = parleyMiddleware({ handle: 'bot', url: hub.url, token: hub.agents.bot!.token, log: (line) => logs.push(line), ...options });
      cleanups.push(() => mw.close());
      return mw;
    },
  };
}

export const ADDENDUM = promptAddendum('bot');
export const noop = tool({ description: 'does nothing', inputSchema: z.object({}), execute: async () => 'ok' });
export const tools = { chat_post: noop, mcp__parley__chat_post: noop, read_file: noop };
