import type { Config } from '../config/schema.js';
import type { ToolSettings } from './tool-types.js';

/** The settings tools read, from the hub's config: its default channel, its wait limits, the compat meeting. */
export function toolSettingsOf(config: Config): ToolSettings {
  return {
    defaultChannel: config.chat.defaultChannel,
    maxWaitMs: Math.min(config.mcp.waitTimeoutMs, config.inbox.maxWaitTimeoutMs),
    compatMeeting: config.mcp.compatMeeting,
  };
}
