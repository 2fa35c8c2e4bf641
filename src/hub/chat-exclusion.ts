// Who has chat (the feature toggle, and the architect who takes no
// part in chat). Chat is closed on every surface for everyone when
// `chat.enabled` is false, and for a participant whose kind or one of whose
// roles is in `mcp.excludedKinds`: MCP lists no chat tools, the hub refuses
// its chat calls over REST and the library alike, and nothing of chat reaches
// it (inbox, wait, live stream). Kind and roles are set by whoever registers
// the participant (`parley join --kind … --role …`), never by the participant
// itself, so it cannot lift its own exclusion.
//
// Chat is channels, DMs, side channels, their messages, mentions, history,
// search, export, subscriptions and the steering of those threads. Requests
// and responses, meetings and presence are not chat: they stay open.

import type { Config } from '../config/schema.js';
import { ParleyError } from '../errors/parley-error.js';
import type { Profile } from '../schema/participant.js';
import type { Caller } from './records.js';

/** Whether the participant's kind or one of its roles excludes it from chat on this hub. */
export function excludedFromChat(config: Config, profile: Profile): boolean {
  return exclusionOf(config, profile) !== undefined;
}

/** Whether this participant has chat on this hub (the toggle is on and it is not excluded). */
export function chatOpenFor(config: Config, profile: Profile): boolean {
  return config.chat.enabled && !excludedFromChat(config, profile);
}

/**
 * What still reaches a participant without chat: requests addressed to it and
 * responses to its own requests. Mentions, DMs, messages addressed to it,
 * prods, invites and steering do not.
 */
export function reachesWithoutChat(reason: string | undefined): boolean {
  return reason === 'request' || reason === 'response';
}

/** The kind or role that excludes the participant from chat, if any. */
function exclusionOf(config: Config, profile: Profile): string | undefined {
  const excluded = new Set(config.mcp.excludedKinds.map((k) => k.toLowerCase()));
  return [profile.kind, ...profile.roles].find((k) => excluded.has(k.toLowerCase()));
}

/**
 * Refuses a chat call with CHAT_DISABLED when chat is off on the hub or for
 * this participant: for it, chat does not exist (as its MCP tool list shows),
 * so a client stops using chat altogether instead of retrying one action.
 */
export function assertChatAllowed(config: Config, caller: Caller): void {
  if (!config.chat.enabled) {
    throw new ParleyError('CHAT_DISABLED', 'Chat is disabled on this hub (chat.enabled is false); nothing was done.', {
      hint: 'use-requests',
    });
  }
  const me = caller.participant;
  const exclusion = exclusionOf(config, me.profile);
  if (exclusion === undefined) return;
  throw new ParleyError(
    'CHAT_DISABLED',
    `Chat is disabled for @${me.handle}: "${exclusion}" is excluded from chat on this hub (mcp.excludedKinds); nothing was done.`,
    { hint: 'use-requests' },
  );
}

/**
 * Refuses a message addressed to a participant without chat (a DM, or `to` in
 * a channel): it would never read it. Nothing is stored; the sender is told to
 * ask with a request, which does reach it.
 */
export function assertReachableByChat(config: Config, recipient: { handle: string; profile: Profile }, field: string): void {
  const exclusion = exclusionOf(config, recipient.profile);
  if (exclusion === undefined) return;
  throw new ParleyError(
    'INVALID_INPUT',
    `Invalid ${field}: @${recipient.handle} takes no part in chat on this hub ("${exclusion}" is in mcp.excludedKinds), so it would never read this; nothing was stored.`,
    { field, hint: 'use-requests' },
  );
}
