import type { Config } from '../config/schema.js';
import type { Profile, WakeOn } from '../schema/participant.js';

/**
 * What wakes this participant: its own choice (profile `wakeOn`), else the
 * hub's default for agents (`agents.wakeOn`); humans, who do not wait on the
 * hub, default to `all`. Read at each use, so a change applies at once, even
 * to a wait already under way.
 */
export function wakeOnFor(config: Config, profile: Profile): WakeOn {
  return profile.wakeOn ?? (profile.kind === 'agent' ? config.agents.wakeOn : 'all');
}
