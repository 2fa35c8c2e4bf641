import { INSTALL_HOOK_TIMEOUT_SECONDS, INSTALL_MCP_STARTUP_TIMEOUT_SECONDS, INSTALL_STOP_TIMEOUT_MARGIN_SECONDS } from '../config/defaults.js';
import type { Config } from '../config/schema.js';
import type { HookTiming } from './spec.js';

/**
 * The timeouts install writes, from the hub config of the home it runs
 * against: the stop hook may wait up to `agents.stayAvailableSeconds` for a
 * message, so the client must give it longer than that, or it would kill the
 * hook mid-wait and drop what it found.
 */
/** The hook settings' defaults, for a config that predates them (agents.stayAvailableSeconds, agents.maxStopContinuations). */
const STOP_WAIT_SECONDS_IF_UNSET = 300;
const STOP_CONTINUATIONS_IF_UNSET = 5;

function numberAt(section: unknown, key: string): number | undefined {
  const value = (section as Record<string, unknown> | undefined)?.[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function hookTiming(config: Config): HookTiming {
  const stopWait = numberAt(config.agents, 'stayAvailableSeconds') ?? STOP_WAIT_SECONDS_IF_UNSET;
  return {
    quickSeconds: INSTALL_HOOK_TIMEOUT_SECONDS,
    stopSeconds: Math.ceil(stopWait) + INSTALL_STOP_TIMEOUT_MARGIN_SECONDS,
    stopLoopLimit: numberAt(config.agents, 'maxStopContinuations') ?? STOP_CONTINUATIONS_IF_UNSET,
    mcpStartupSeconds: INSTALL_MCP_STARTUP_TIMEOUT_SECONDS,
  };
}
