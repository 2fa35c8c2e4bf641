/**
 * `parley/agent`: the agent loop on Parley, for AI SDK models. The loop lives
 * on the agent's inbox (runAgent / createAgent), can spawn or fork local
 * subagents, and stops at its budget saying why; parleyTools gives any AI SDK
 * loop Parley's hub tools.
 */

export { createAgent, runAgent, type Agent } from './agent.js';
export { AgentOptionsSchema, type AgentOptions, type Relevance } from './agent-options.js';
export type { AgentEvent, AgentResult, StopReason, SubagentInfo, TokenUsage } from './agent-events.js';
export type { SubagentMode, SubagentResult, SubagentStatus } from './subagent-result.js';
export { parleyTools, PARLEY_TOOL_NAMES } from './parley-tools.js';
export { SUBAGENT_TOOL_NAMES } from './subagent-tools.js';
export { linkToHub, type HubLink } from '../middleware/hub-link.js';
export {
  AGENT_HUB_RETRY_FIRST_MS,
  AGENT_HUB_RETRY_MAX_MS,
  AGENT_MAX_CONSECUTIVE_FAILURES,
  AGENT_MAX_HISTORY_MESSAGES,
  AGENT_MAX_STEPS_PER_TURN,
  AGENT_RELEVANCE_BUDGET_TOKENS,
  AGENT_SUBAGENT_MAX_STEPS,
  AGENT_WAIT_MS,
} from '../config/defaults.js';
