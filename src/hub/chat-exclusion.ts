import type { Config } from '../config/schema.js';
import { ParleyError } from '../errors/parley-error.js';
import type { Profile } from '../schema/participant.js';
import type { Seat } from './seat.js';

/**
 * Excluded kinds (Maestro: the architect takes no part in chat). A participant
 * whose kind or one of whose roles is in `mcp.excludedKinds` has no chat on any
 * surface: MCP lists no chat tools, and the hub refuses its chat calls over
 * REST and the library alike. Kind and roles are set by whoever registers the
 * participant (`parley join --kind … --role …`), never by the participant
 * itself, so it cannot lift its own exclusion. Requests still reach it.
 */
export function excludedFromChat(config: Config, profile: Profile): boolean {
  return exclusionOf(config, profile) !== undefined;
}

/** The kind or role that excludes the participant from chat, if any. */
function exclusionOf(config: Config, profile: Profile): string | undefined {
  const excluded = new Set(config.mcp.excludedKinds.map((k) => k.toLowerCase()));
  return [profile.kind, ...profile.roles].find((k) => excluded.has(k.toLowerCase()));
}

/**
 * Refuses a chat call by an excluded participant with CHAT_DISABLED: for it,
 * chat does not exist, as for everyone when `chat.enabled` is false (and as
 * its MCP tool list shows), so a client stops using chat altogether instead
 * of retrying one refused action.
 */
export function assertChatAllowed(config: Config, seat: Seat): void {
  const me = seat.participant;
  const exclusion = exclusionOf(config, me.profile);
  if (exclusion === undefined) return;
  throw new ParleyError(
    'CHAT_DISABLED',
    `Chat is disabled for @${me.handle}: "${exclusion}" is excluded from chat on this hub (mcp.excludedKinds); nothing was done. Use requests instead (request_send, POST /api/v1/requests).`,
  );
}
