// How far back a channel's history reaches on this hub: its access policy's
// retention (the config's by default), or an archive's longer one. History
// sync neither asks for nor serves, nor takes, anything older.

import { parsePublicKey } from '../trust/node-id.js';
import { policyOf } from './channel-access.js';
import type { HubContext } from './context.js';
import type { ThreadRecord } from './records.js';

/**
 * How far back a channel's history reaches (its policy's retention, the
 * config's by default): in hours, and in newest events. An archive keeps
 * `retention.archiveHours` and any number.
 */
export function retentionWindow(ctx: HubContext, channel: ThreadRecord | undefined, archive: boolean): { hours: number; messages: number } {
  const policy = channel && policyOf(ctx, channel)?.policy;
  const hours = policy?.retention_hours ?? ctx.config.retention.hours;
  const messages = policy?.retention_messages ?? ctx.config.retention.messages;
  return archive ? { hours: Math.max(hours, ctx.config.retention.archiveHours), messages: Infinity } : { hours, messages };
}

/** Whether the roster in force marks the hub holding `key` (this hub's own, by default) an archive. */
export function isArchive(ctx: HubContext, key?: string): boolean {
  return ctx.access.isArchive(key === undefined ? ctx.keys.hub().raw : parsePublicKey(key));
}

/** The start of the window this hub keeps of a channel's history (epoch ms). */
export function windowStart(ctx: HubContext, channel: ThreadRecord | undefined): number {
  return ctx.now() - retentionWindow(ctx, channel, isArchive(ctx)).hours * 3_600_000;
}

/** Whether the channel's policy lets its history be fetched (no policy: it does). */
export function allowsFetch(ctx: HubContext, channel: ThreadRecord): boolean {
  return policyOf(ctx, channel)?.policy.allow_history_fetch !== false;
}
