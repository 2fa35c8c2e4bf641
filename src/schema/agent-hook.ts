import { z } from 'zod';
import { oneLineText } from './text.js';

/**
 * What an agent CLI's hook reports to the hub (`parley hook` sends it, one
 * request per hook run): which moment of the agent's turn it is, in the hub's
 * own words whatever the client calls it, and the client's facts that bound
 * stop continuations.
 */
export const AGENT_HOOK_EVENTS = ['session-start', 'prompt', 'tool', 'stop', 'session-end'] as const;
export type AgentHookEvent = (typeof AGENT_HOOK_EVENTS)[number];

export const AgentHookInputSchema = z.strictObject({
  event: z.enum(AGENT_HOOK_EVENTS),
  /** The client's own session (conversation) id: stop continuations are counted per client session. */
  session: z.string().min(1).max(256).check(oneLineText).optional(),
  /** Claude Code, Codex and Gemini: the agent is already continuing because a stop hook blocked. */
  stop_hook_active: z.boolean().optional(),
  /** Cursor: follow-ups its stop hooks already triggered in this conversation. */
  loop_count: z.number().int().min(0).max(1_000_000).optional(),
  /** Stop events: false inside a coordinator run, which answers for the agent: the stop neither waits nor blocks. */
  wait: z.boolean().optional(),
});
export type AgentHookInput = z.input<typeof AgentHookInputSchema>;

/** The hub's answer: the context to give the agent (absent when nothing is new), and whether to block its stop. */
export interface AgentHookResult {
  /** Items put into the agent's context by this answer (each once). */
  injected: number;
  /** A short factual text saying what arrived and how to answer it, within the client's cap. */
  text?: string;
  /** Stop events only: keep the agent going (the text is the reason). */
  block?: true;
}
