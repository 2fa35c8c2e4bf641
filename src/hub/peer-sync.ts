// What the peer links (src/peer) use of the hub to carry events between hubs:
// the participants each linked hub hosts, the events it sends (taken in
// through the peer entry), and what this hub sends it, from its own log after
// that hub's cursor.

import type { HubContext } from './context.js';
import { mergePreparedPages, preparePeerPage, storePeerPage, type PeerEvent, type PeerTaken, type PreparedPage } from './peer-intake.js';
import type { PeerEntry } from './peer-entry.js';
import { countWaitingAfter, oldestWaitingAfter, outboundFor, type OutboundPage } from './peer-outbox.js';
import { gossipOfChange, hubDown, localPresence, takePresence, type PresenceGossip } from './peer-presence.js';
import { hostNamedByPeer, hostParticipants, type HostedElsewhere, type HostingHub } from './remote-participants.js';
import { channelHasGap, channelOfThread, GapWatch, historyGaps, type HistoryChannel, type HistoryGap } from './history-gaps.js';
import { askOf, digestFor, HistoryServing, lacks, readableHere, type ChannelDigest, type HistoryAsk, type HistoryPage } from './peer-history.js';
import { isArchive } from './history-window.js';

export type { PeerEvent, PeerTaken, PreparedPage, SideStep } from './peer-intake.js';
export type { OutboundPage } from './peer-outbox.js';
export type { HostedElsewhere, HostingHub } from './remote-participants.js';
export type { PresenceGossip } from './peer-presence.js';
export type { ChannelDigest, HistoryAsk, HistoryAuthor, HistoryPage, HistoryStream } from './peer-history.js';
export type { HistoryChannel, HistoryGap } from './history-gaps.js';

/** Commits are folded into the streams kept for digests this long after the first of them (many commits, one fold). */
const FOLD_AFTER_MS = 100;

export class PeerSync {
  readonly #ctx: HubContext;
  readonly #entry: PeerEntry;
  readonly #defaultSession: string;
  #presenceSeq = 0;
  readonly #gapWatch = new GapWatch();
  /** The gaps as last found, and when (they change only as pages are taken, or retention prunes). */
  #gaps: { at: number; gaps: HistoryGap[]; stale: boolean } | undefined;
  readonly #gapListeners = new Set<(channels: HistoryChannel[]) => void>();

  constructor(ctx: HubContext, entry: PeerEntry, defaultSession: string) {
    this.#ctx = ctx;
    this.#entry = entry;
    this.#defaultSession = defaultSession;
  }

  /** Registers the participants a linked hub says (in its signed hello) it hosts. */
  async hosted(hub: HostingHub, participants: readonly HostedElsewhere[]): Promise<void> {
    // A linked hub may send a long page next (what this hub missed): its signature checks' worker starts now, not then.
    this.#ctx.signatureChecks.warm();
    await hostParticipants(this.#ctx, hub, participants, this.#defaultSession);
  }

  /**
   * Decodes a page a linked hub sent and starts the checks that need nothing
   * of this hub's state (signatures, secret scans), so that they run while
   * the page before it is stored. `live`: sent as its events were written.
   */
  prepare(fromHub: string, events: readonly PeerEvent[], live = false): PreparedPage {
    return preparePeerPage(this.#ctx, fromHub, events, live);
  }

  /**
   * Takes in a prepared page, after the one before it; resolves, once what
   * was stored is durable, with what became of each event. A gap its events
   * show in a channel's history is told to the onGap listeners.
   */
  async take(page: PreparedPage): Promise<PeerTaken[]> {
    const taken = await storePeerPage(this.#ctx, this.#entry, page);
    if (this.#gaps && taken.some((outcome) => 'seq' in outcome && !outcome.duplicate)) this.#gaps.stale = true;
    const gaps = this.#gapWatch.noticed(this.#ctx, page, taken);
    if (gaps.length > 0) {
      // A new gap shows at once; one filled shows gone within a second (see gaps()).
      this.#gaps = undefined;
      for (const listener of this.#gapListeners) listener(gaps);
    }
    return taken;
  }

  // History ----------------------------------------------------------------

  /** Calls `listener` with the channels whose history a page just taken shows a gap in, until the returned stop. */
  onGap(listener: (channels: HistoryChannel[]) => void): () => void {
    this.#gapListeners.add(listener);
    return () => this.#gapListeners.delete(listener);
  }

  /**
   * Every gap in the history this hub holds, while it lasts. Found again at
   * most once a second while pages come in (peer list, status and the page
   * ask often, and a long catch-up takes many pages), and every 10 s at most
   * otherwise (retention may have pruned around one).
   */
  gaps(): HistoryGap[] {
    const now = performance.now();
    const found = this.#gaps;
    if (found && now - found.at < (found.stale ? 1000 : 10_000)) return found.gaps;
    this.#gaps = { at: now, gaps: historyGaps(this.#ctx, this.#gapWatch), stale: false };
    return this.#gaps.gaps;
  }

  /**
   * Calls `listener` with each channel this hub joins: one made here (its
   * first event came, or it was created), or one whose access policy changed,
   * that a participant this hub hosts may read; until the returned stop.
   */
  onChannelJoined(listener: (channel: HistoryChannel) => void): () => void {
    return this.#ctx.bus.listenEverySession((item) => {
      if (item.kind !== 'event') return;
      const { type, content, thread } = item.event;
      const action = typeof content === 'object' && content !== null ? content : {};
      if (!(type === 'control' && 'access' in action) && !(type === 'system' && 'action' in action && action.action === 'thread.created')) return;
      const record = this.#ctx.state.threads.get(thread);
      const channel = record?.kind === 'channel' ? channelOfThread(this.#ctx, thread) : undefined;
      if (channel && record && readableHere(this.#ctx, record)) listener(channel);
    });
  }

  /** Whether a channel's history has a gap now. */
  hasGap(channel: HistoryChannel): boolean {
    return channelHasGap(this.#ctx, this.#gapWatch, channel);
  }

  /** The channels the hub holding `peerKey` may read, with what this hub holds of each since `sinceTs`. */
  digest(peerKey: string, sinceTs: number): ChannelDigest[] {
    return digestFor(this.#ctx, peerKey, sinceTs);
  }

  /** Whether a peer's digest of a channel holds what this hub lacks. */
  lacks(digest: ChannelDigest): boolean {
    return lacks(this.#ctx, digest);
  }

  /** What this hub asks a peer of a channel (peers.sync.* sizes its pages). */
  ask(session: string, channel: string): HistoryAsk {
    const { maxMessages, maxBytes } = this.#ctx.config.peers.sync;
    return askOf(this.#ctx, session, channel, { maxMessages, maxBytes }, (thread) => this.#gapWatch.gapsOf(this.#ctx, thread));
  }

  /** A channel's history for the hub holding `peerKey`, page after page (FORBIDDEN when it may not have it). */
  serveHistory(peerKey: string, ask: HistoryAsk): { next(): HistoryPage } {
    return new HistoryServing(this.#ctx, peerKey, ask);
  }

  /** A page of history the hub holding `fromHub` served, prepared as a page of its events is (its authors this hub did not know registered first); `first`: the first page of a catch-up, checked at once. */
  async prepareHistory(fromHub: string, page: Pick<HistoryPage, 'events' | 'authors'>, first = false): Promise<PreparedPage> {
    await hostNamedByPeer(this.#ctx, page.authors, this.#defaultSession);
    return preparePeerPage(this.#ctx, fromHub, page.events, false, true, first);
  }

  /** Pages prepared one by one, taken as one (in their order, with one commit). */
  mergePages(pages: readonly PreparedPage[]): PreparedPage {
    return mergePreparedPages(pages);
  }

  /**
   * Folds the events of each commit into the streams history digests are
   * made of, soon after it (in chunks, between which the hub serves others),
   * so that a peer's digest is quick when it asks; until the returned stop.
   */
  foldStreamsAfterCommits(): () => void {
    let timer: NodeJS.Timeout | undefined;
    const fold = (): void => {
      timer = undefined;
      if (this.#ctx.store.db.open && !this.#ctx.store.history.foldStreams()) timer = setTimeout(fold, 0).unref();
    };
    const stop = this.onCommitted(() => {
      timer ??= setTimeout(fold, FOLD_AFTER_MS).unref();
    });
    return () => {
      stop();
      clearTimeout(timer);
    };
  }

  /** Whether the roster in force marks the hub holding `key` an archive (it keeps history longer: asked first). */
  isArchive(key: string): boolean {
    return isArchive(this.#ctx, key);
  }

  /** The sizes and the interval of history sync (peers.sync.*). */
  get syncConfig(): HubContext['config']['peers']['sync'] {
    return this.#ctx.config.peers.sync;
  }

  /** What the hub holding `peerKey` is sent next, after `after`. */
  outbound(peerKey: string, after: number, limit: number): OutboundPage {
    return outboundFor(this.#ctx, peerKey, after, limit);
  }

  /**
   * The peer's cursor, at the head of this hub's log when the peer was never
   * linked before: the fan-out sends what is written from then on, and what
   * was written before reaches it as history, within each channel's
   * retention and policy (allow_history_fetch).
   */
  begin(peerKey: string): number {
    const store = this.#ctx.store;
    if (!store.peerCursors.has(peerKey)) store.writes.write(() => store.peerCursors.advance(peerKey, store.events.visibleUpTo));
    return store.peerCursors.cursor(peerKey);
  }

  /** Records the DMs a page left out as expired unsent (their senders see them so). */
  expired(sends: OutboundPage['expired']): void {
    if (sends.length > 0) this.#ctx.store.writes.write(() => sends.forEach((send) => this.#ctx.store.peerCursors.expired(send.seq, send.at)));
  }

  /** The highest seq of this hub's log the peer acknowledged (0: none). */
  cursor(peerKey: string): number {
    return this.#ctx.store.peerCursors.cursor(peerKey);
  }

  /** The peer acknowledged everything through `seq`: kept with the next commit. */
  acknowledged(peerKey: string, seq: number): void {
    this.#ctx.store.writes.write(() => this.#ctx.store.peerCursors.advance(peerKey, seq));
  }

  /**
   * When the oldest event of this hub's own that may cross and that the peer
   * has not acknowledged was written (epoch ms), or null when none waits: how
   * far behind the peer is.
   */
  waitingSince(peerKey: string): number | null {
    return oldestWaitingAfter(this.#ctx, this.cursor(peerKey));
  }

  /**
   * How many of this hub's own events that may cross the peer has not
   * acknowledged (those in channels it may not read among them, until its
   * cursor passes them).
   */
  waiting(peerKey: string): number {
    return countWaitingAfter(this.#ctx, this.cursor(peerKey));
  }

  /** Calls `listener` after each commit that holds events, until the returned stop. */
  onCommitted(listener: () => void): () => void {
    return this.#ctx.bus.listenEverySession((item) => {
      if (item.kind === 'event') listener();
    });
  }

  // Presence ---------------------------------------------------------------

  /** The presence of every participant hosted here, for a peer just linked (and again before the TTL runs out). */
  localPresence(): PresenceGossip[] {
    return localPresence(this.#ctx);
  }

  /** Calls `listener` with each change of presence of a participant hosted here, until the returned stop. */
  onLocalPresence(listener: (gossip: PresenceGossip) => void): () => void {
    return this.#ctx.bus.listenEverySession((item) => {
      const gossip = item.kind === 'presence' ? gossipOfChange(this.#ctx, item.session, item.presence) : undefined;
      if (gossip) listener(gossip);
    });
  }

  /** The next seq this hub gossips presence at: it only grows, across restarts too (it follows the clock). */
  nextPresenceSeq(): number {
    this.#presenceSeq = Math.max(this.#ctx.now(), this.#presenceSeq + 1);
    return this.#presenceSeq;
  }

  /** Takes a linked hub's gossip of its participants' presence; how many items were left out (not its own, or of no session here). */
  takePresence(fromHub: string, seq: number, items: readonly PresenceGossip[]): number {
    return takePresence(this.#ctx, fromHub, seq, items);
  }

  /** The link to a hub went down: its participants show offline. */
  hubDown(hubKey: string): void {
    hubDown(this.#ctx, hubKey);
  }
}
