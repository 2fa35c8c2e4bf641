import type { Config } from '../config/schema.js';
import type { HookTiming } from './spec.js';

/**
 * The timeouts install writes, from the hub config of the home it runs
 * against: the stop hook may wait up to `agents.stayAvailableSeconds` for a
 * message, so the client must give it longer than that, or it would kill the
 * hook mid-wait and drop what it found. Cursor's own loop limit for the stop
 * hook is set to the hub's cap, so neither stops the other early.
 */
export function hookTiming(config: Config): HookTiming {
  return {
    quickSeconds: config.install.hookTimeoutSeconds,
    stopSeconds: Math.ceil(config.agents.stayAvailableSeconds) + config.install.stopTimeoutMarginSeconds,
    stopLoopLimit: config.agents.maxStopContinuations,
    mcpStartupSeconds: config.install.mcpStartupTimeoutSeconds,
  };
}
