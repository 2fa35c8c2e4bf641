// Gaps in a channel's history: an event held whose author's previous one (the
// prev_seq its author's hub sent with it) is not, while an older one of the
// same author, thread and epoch is. The seqs of events that never leave their
// hub (a thread's creation, a rename) are not gaps: prev_seq skips them. A new
// epoch starts with no previous event, so a sender that lost its counters
// makes no gap either. Events older than the oldest held are not asked for:
// retention let them go.

import { participantIdOf } from '../trust/node-id.js';
import { governingChannel } from './channel-access.js';
import type { HubContext } from './context.js';
import type { PeerTaken, PreparedPage } from './peer-intake.js';
import { threadsOf } from './peer-history.js';
import type { SignedEventFields } from '../trust/envelope.js';
import type { HistoryGap } from '../schema/peer-link.js';
import { streamKey, type GapRow } from '../store/history-store.js';
import type { ThreadRecord } from './records.js';

export type { HistoryGap } from '../schema/peer-link.js';

/** A channel by name, as hubs name it to each other. */
export interface HistoryChannel {
  session: string;
  channel: string;
}

/** Streams whose last taken seq is remembered, at most (then forgotten, and looked up in the store again). */
const REMEMBERED_STREAMS = 10_000;

/**
 * Notices gaps as pages from linked hubs are taken (each event's prev_seq
 * against what is held), and finds the gaps of a channel. A gap opens only
 * as events are taken (retention, which prunes the oldest, closes some): a
 * channel found with none is not searched again until one is noticed in it.
 */
export class GapWatch {
  /** The last sender_seq taken of each stream: the next event's prev_seq is usually it, and nothing need be looked up. */
  readonly #last = new Map<string, number>();
  /** The channels (by thread id) found with no gap, and none noticed since. */
  readonly #whole = new Set<string>();

  /** The gaps of a channel's history, as they stand. */
  gapsOf(ctx: HubContext, channel: ThreadRecord): GapRow[] {
    if (this.#whole.has(channel.id)) return [];
    const gaps = ctx.store.history.gaps(threadsOf(ctx, channel));
    if (gaps.length === 0) this.#whole.add(channel.id);
    return gaps;
  }

  /** The channels in which the page's events, just taken, show a gap. */
  noticed(ctx: HubContext, page: PreparedPage, taken: readonly PeerTaken[]): HistoryChannel[] {
    const found = new Map<string, HistoryChannel>();
    taken.forEach((outcome, i) => {
      const prev = page.events[i]?.prev;
      const fields = page.decoded[i] as SignedEventFields;
      // A duplicate changes nothing held.
      if ('dropped' in outcome || outcome.duplicate) return;
      const author = participantIdOf(fields.from);
      const epoch = Buffer.from(fields.sender_epoch);
      const key = streamKey(author, outcome.thread, epoch);
      const last = this.#last.get(key);
      // An event older than the last taken (history filling in) may open a gap below a later one: search again.
      if (last === undefined || fields.sender_seq < last) this.#searchAgain(ctx, outcome.thread);
      if (prev !== undefined && prev !== null && last !== prev) {
        const below = ctx.store.history.heldAtOrBelow(author, outcome.thread, epoch, prev);
        if (below !== null && below < prev) {
          this.#searchAgain(ctx, outcome.thread);
          const channel = channelOfThread(ctx, outcome.thread);
          if (channel) found.set(`${channel.session}\n${channel.channel}`, channel);
        }
      }
      if (this.#last.size >= REMEMBERED_STREAMS && last === undefined) this.#last.clear();
      if (last === undefined || fields.sender_seq > last) this.#last.set(key, fields.sender_seq);
    });
    return [...found.values()];
  }

  #searchAgain(ctx: HubContext, threadId: string): void {
    const thread = ctx.state.threads.get(threadId);
    const channel = thread && governingChannel(ctx, thread);
    if (channel) this.#whole.delete(channel.id);
  }
}

/** The channel a thread belongs to, by name (undefined: a DM, or a thread gone). */
export function channelOfThread(ctx: HubContext, threadId: string): HistoryChannel | undefined {
  const thread = ctx.state.threads.get(threadId);
  const channel = thread && governingChannel(ctx, thread);
  const session = channel && ctx.state.sessions.get(channel.sessionId);
  return channel && session ? { session: session.name, channel: channel.name } : undefined;
}

/** Every gap in the history of the channels this hub holds, as they stand. */
export function historyGaps(ctx: HubContext, watch: GapWatch): HistoryGap[] {
  const gaps: HistoryGap[] = [];
  for (const channel of ctx.state.threads.values()) {
    if (channel.kind !== 'channel') continue;
    const session = ctx.state.sessions.get(channel.sessionId);
    if (!session) continue;
    for (const row of watch.gapsOf(ctx, channel)) {
      const author = ctx.state.participants.get(row.from_id);
      gaps.push({
        session: session.name,
        channel: channel.name,
        author: author?.handle ?? row.from_id,
        hub: author?.hub ?? null,
        hubKey: author?.hubKey ?? null,
        missingFrom: row.missing,
        holes: row.holes,
        before: new Date(row.after_ts).toISOString(),
      });
    }
  }
  return gaps;
}

/** Whether a channel's history has a gap now (false for a channel this hub does not hold). */
export function channelHasGap(ctx: HubContext, watch: GapWatch, channel: HistoryChannel): boolean {
  const session = ctx.state.sessionByName(channel.session);
  const thread = session && ctx.state.channel(session.id, channel.channel);
  return thread !== undefined && watch.gapsOf(ctx, thread).length > 0;
}
