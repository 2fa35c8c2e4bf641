/**
 * The limits and defaults that input schemas themselves enforce. They sit
 * here, below config, so a schema never reaches up for a number;
 * config/defaults.ts hands them on with every other limit of Parley.
 */

/** The most items one inbox read, take or delivery list may ask for. */
export const MAX_INBOX_LIMIT = 500;
/** The most events one history, read or meeting hear may ask for. */
export const MAX_READ_LIMIT = 1000;
/** Events older than this are pruned from a channel (the default retention). */
export const DEFAULT_RETENTION_HOURS = 72;
/** A channel keeps at most this many newest events (the default retention). */
export const DEFAULT_RETENTION_MESSAGES = 10_000;

/** Side channels nest at most this deep as a linked hub names them (a side channel's parents, walked, stop there too). */
export const MAX_SIDE_DEPTH = 32;
