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
    quickSeconds: config.install.hookTimeoutSeconds,
    stopSeconds: Math.ceil(stopWait) + config.install.stopTimeoutMarginSeconds,
    stopLoopLimit: numberAt(config.agents, 'maxStopContinuations') ?? STOP_CONTINUATIONS_IF_UNSET,
    mcpStartupSeconds: config.install.mcpStartupTimeoutSeconds,
  };
}
