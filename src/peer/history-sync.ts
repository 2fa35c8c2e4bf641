/**
 * History sync over the links (`/parley/history/1`, frames in
 * history-frames.ts). The fan-out brings each hub's own events from that hub;
 * this brings what a hub missed from hubs that hold it, whoever wrote it: C
 * posted while B was down and is gone itself, and A, which holds C's events,
 * serves them. A hub compares with a peer (a digest: per channel, what each
 * author's history holds) when the link comes up, every
 * `peers.sync.intervalSeconds` with a few linked peers (archives and the most
 * recently heard first), and when a page it took shows a gap; it then asks
 * for the channels where the peer holds what it lacks, and takes the pages as
 * it takes the fan-out's: every signature, author and rule checked, each event
 * once by id.
 */

import type { Connection, Stream } from '@libp2p/interface';
import { lpStream } from '@libp2p/utils';
import type { ChannelDigest, HistoryAsk, HistoryChannel, PeerSync, PreparedPage } from '../hub/index.js';
import { inBackground, settled } from '../util/background.js';
import type { EventLinkHooks } from './event-stream.js';
import { linkedPeerOf } from './event-stream.js';
import { BadFrame, MAX_EVENTS_FRAME_BYTES } from './event-frames.js';
import { decodeAnswer, decodeDigest, decodeQuestion, decodeTaken, encodeAnswer, encodeDigest, encodeQuestion, encodeTaken, HISTORY_PROTOCOL } from './history-frames.js';

/** What history sync uses of the links besides the event streams' hooks. */
export interface HistoryLinkHooks extends EventLinkHooks {
  /** The connection of each linked peer, by key. */
  connections(): ReadonlyMap<string, Connection>;
}

/** After a round with a peer that failed (its link not ready yet, or it went), the next try is after this. */
const RETRY_MS = 250;
/** A round that fails this many times in a row waits for the next interval. */
const MAX_TRIES = 4;
/**
 * Pages a serving hub sends ahead of the asking hub's answers, at most, and
 * their bytes: enough that paging costs no round trip a page, few enough
 * that what the asking hub has not read stays well within a stream's buffer.
 */
const PAGES_AHEAD = 8;
const BYTES_AHEAD = 2 * 1024 * 1024;

export class HistorySync {
  readonly #hooks: HistoryLinkHooks;
  readonly #sync: PeerSync;
  /** The round running with each peer; a round asked for meanwhile runs once it ends. */
  readonly #rounds = new Map<string, Promise<void>>();
  readonly #again = new Set<string>();
  /** Channels being repaired (a gap was noticed), by session and name. */
  readonly #repairing = new Set<string>();
  /**
   * Each peer's digest of a channel as it was when this hub last took all it
   * served (by peer, session and channel): a channel whose digest has not
   * changed since is not asked of again. A digest counts events outside the
   * window (retention prunes them later), which are not served.
   */
  readonly #taken = new Map<string, string>();
  /** How many fetches of each channel (by session and name) run now. */
  readonly #fetching = new Map<string, number>();
  readonly #unlisten: () => void;
  readonly #stopFolding: () => void;
  readonly #timer: NodeJS.Timeout;
  #stopped = false;

  constructor(hooks: HistoryLinkHooks) {
    this.#hooks = hooks;
    this.#sync = hooks.sync;
    const unlistenGaps = this.#sync.onGap((channels) => {
      for (const channel of channels) this.#repair(channel);
    });
    const unlistenJoins = this.#sync.onChannelJoined((channel) => this.#repair(channel, true));
    this.#unlisten = () => {
      unlistenGaps();
      unlistenJoins();
    };
    this.#timer = setInterval(() => this.#compare(), this.#sync.syncConfig.intervalSeconds * 1000);
    this.#timer.unref();
    this.#stopFolding = this.#sync.foldStreamsAfterCommits();
  }

  stop(): void {
    this.#stopped = true;
    this.#unlisten();
    this.#stopFolding();
    clearInterval(this.#timer);
  }

  /** A link came up: this hub compares with that peer now. */
  linked(key: string): void {
    this.#round(key);
  }

  /** Answers a peer's question on one stream: a digest, or a channel's history, page after page. */
  async serve(stream: Stream, connection: Connection): Promise<void> {
    const key = await linkedPeerOf(stream, connection, this.#hooks);
    if (key === undefined) return;
    const framed = lpStream(stream, { maxDataLength: MAX_EVENTS_FRAME_BYTES });
    try {
      const question = this.#decoded(key, decodeQuestion, await framed.read({ signal: AbortSignal.timeout(this.#hooks.ackTimeoutMs) }));
      this.#hooks.heard(key);
      if ('digest' in question) await framed.write(encodeDigest(this.#sync.digest(key, question.digest.sinceTs)));
      else await this.#servePages(key, question.ask, framed);
      await settled(stream.close());
    } catch (error) {
      this.#hooks.logger.warn('a history question from a peer was not answered', { peer: key, error: (error as Error).message });
      stream.abort(error as Error);
    }
  }

  async #servePages(key: string, ask: HistoryAsk, framed: ReturnType<typeof lpStream>): Promise<void> {
    let serving;
    try {
      serving = this.#sync.serveHistory(key, ask);
    } catch (error) {
      await framed.write(encodeAnswer({ refused: (error as Error).message }));
      return;
    }
    /** The size of each page sent and not yet answered, oldest first. */
    const ahead: number[] = [];
    for (;;) {
      const page = serving.next();
      const frame = encodeAnswer({ page });
      await framed.write(frame, { signal: AbortSignal.timeout(this.#hooks.ackTimeoutMs) });
      const last = !page.more || this.#stopped;
      if (!last) ahead.push(frame.length);
      // After the last page, the answers still to come are read before the stream closes.
      while (ahead.length > 0 && (last || ahead.length >= PAGES_AHEAD || ahead.reduce((sum, n) => sum + n, 0) >= BYTES_AHEAD)) {
        this.#decoded(key, decodeTaken, await framed.read({ signal: AbortSignal.timeout(this.#hooks.ackTimeoutMs) }));
        ahead.shift();
      }
      if (last) return;
    }
  }

  /** Compares with up to `peers.sync.peers` linked peers: archives first, then the most recently heard. */
  #compare(): void {
    if (this.#stopped) return;
    for (const key of this.#chosen()) this.#round(key);
  }

  #chosen(exclude?: string): string[] {
    const keys = [...this.#hooks.connections().keys()].filter((key) => key !== exclude);
    const archive = new Map(keys.map((key) => [key, this.#sync.isArchive(key)]));
    keys.sort((a, b) => Number(archive.get(b)) - Number(archive.get(a)) || (this.#hooks.lastSeen(b) ?? 0) - (this.#hooks.lastSeen(a) ?? 0));
    return keys.slice(0, this.#sync.syncConfig.peers);
  }

  /** Runs a round with the peer, or once more after the one running. */
  #round(key: string): void {
    if (this.#stopped) return;
    if (this.#rounds.has(key)) {
      this.#again.add(key);
      return;
    }
    const round = this.#roundWith(key).finally(() => {
      this.#rounds.delete(key);
      if (this.#again.delete(key)) this.#round(key);
    });
    this.#rounds.set(key, round);
    inBackground(round, this.#hooks.logger, `comparing history with peer ${key}`);
  }

  async #roundWith(key: string): Promise<void> {
    for (let tries = 1; !this.#stopped; tries += 1) {
      try {
        const digest = await this.#digestOf(key);
        for (const channel of digest) {
          if (this.#stopped) return;
          const id = `${key}\n${channel.session}\n${channel.channel}`;
          const print = fingerprintOf(channel);
          if (this.#taken.get(id) === print) continue;
          const lacks = this.#sync.lacks(channel);
          this.#hooks.logger.debug('compared history with a peer', { peer: key, channel: channel.channel, lacks });
          const whole = lacks ? await this.#fetch(key, channel) : true;
          if (whole) this.#taken.set(id, print);
        }
        return;
      } catch (error) {
        if (tries >= MAX_TRIES || !this.#hooks.connections().has(key)) {
          this.#hooks.logger.warn('history could not be compared with a peer; the next interval tries again', { peer: key, error: (error as Error).message });
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS * tries).unref());
      }
    }
  }

  /**
   * A gap in a channel's history: asked of the chosen peers in turn until
   * none is left. A channel just joined (`joined`): asked of them in turn
   * until one served all it holds.
   */
  #repair(channel: HistoryChannel, joined = false): void {
    const id = `${channel.session}\n${channel.channel}`;
    // A channel joined as its history is being taken (its policy came with it) is not asked for twice.
    if (this.#repairing.has(id) || this.#stopped || (joined && this.#fetching.has(id))) return;
    this.#repairing.add(id);
    const repair = (async () => {
      for (const key of this.#chosen()) {
        if (!joined && !this.#sync.hasGap(channel)) return;
        try {
          if ((await this.#fetch(key, channel)) && joined) return;
        } catch (error) {
          this.#hooks.logger.warn('a peer could not serve the history of a channel with a gap', { peer: key, channel: channel.channel, error: (error as Error).message });
        }
      }
    })().finally(() => this.#repairing.delete(id));
    inBackground(repair, this.#hooks.logger, `repairing the history of #${channel.channel}`);
  }

  /** A frame the peer sent, decoded; one that does not decode is counted on its link (malformed-frame) and ends the stream. */
  #decoded<T>(key: string, decode: (bytes: Uint8Array) => T, frame: { subarray(): Uint8Array }): T {
    try {
      return decode(frame.subarray());
    } catch (error) {
      if (error instanceof BadFrame) this.#hooks.countDrop(key, 'malformed-frame');
      throw error;
    }
  }

  async #open(key: string): Promise<{ stream: Stream; framed: ReturnType<typeof lpStream> }> {
    const connection = this.#hooks.connections().get(key);
    if (!connection) throw new Error('the peer is not linked');
    const stream = await connection.newStream(HISTORY_PROTOCOL, { signal: AbortSignal.timeout(this.#hooks.ackTimeoutMs) });
    return { stream, framed: lpStream(stream, { maxDataLength: MAX_EVENTS_FRAME_BYTES }) };
  }

  async #digestOf(key: string): Promise<ReturnType<typeof decodeDigest>> {
    const { stream, framed } = await this.#open(key);
    try {
      await framed.write(encodeQuestion({ digest: { sinceTs: 0 } }));
      const digest = this.#decoded(key, decodeDigest, await framed.read({ signal: AbortSignal.timeout(this.#hooks.ackTimeoutMs) }));
      this.#hooks.heard(key);
      return digest;
    } finally {
      await settled(stream.close());
    }
  }

  /**
   * Asks the peer for a channel's history and takes its pages in order: each
   * is checked as soon as it is read (signatures, scans), and the pages read
   * while one batch is stored are stored together next (one commit for them
   * all); ends once the peer says no more follows. A page that cannot be
   * taken ends the stream: the next round asks again, from what is held then.
   * Resolves true when every event served was taken (none refused).
   */
  async #fetch(key: string, channel: HistoryChannel): Promise<boolean> {
    const id = `${channel.session}\n${channel.channel}`;
    this.#fetching.set(id, (this.#fetching.get(id) ?? 0) + 1);
    try {
      return await this.#fetchFrom(key, channel);
    } finally {
      const left = this.#fetching.get(id)! - 1;
      if (left === 0) this.#fetching.delete(id);
      else this.#fetching.set(id, left);
    }
  }

  async #fetchFrom(key: string, channel: HistoryChannel): Promise<boolean> {
    const ask = this.#sync.ask(channel.session, channel.channel);
    const { stream, framed } = await this.#open(key);
    const waiting: Array<Promise<PreparedPage>> = [];
    let storing: Promise<void> | undefined;
    let failed: unknown;
    let refused = 0;
    let withEvents = 0;
    const store = (): void => {
      if (storing || waiting.length === 0 || failed !== undefined) return;
      const batch = waiting.splice(0, PAGES_AHEAD);
      storing = Promise.all(batch)
        .then(async (pages) => {
          refused += await this.#take(key, this.#sync.mergePages(pages));
        })
        .catch((error: unknown) => {
          failed ??= error;
        })
        .finally(() => {
          storing = undefined;
          store();
        });
    };
    try {
      await framed.write(encodeQuestion({ ask }));
      for (;;) {
        const answer = this.#decoded(key, decodeAnswer, await framed.read({ signal: AbortSignal.timeout(this.#hooks.ackTimeoutMs) }));
        this.#hooks.heard(key);
        if ('refused' in answer) {
          this.#hooks.logger.info('a peer does not serve the history of a channel', { peer: key, channel: channel.channel, reason: answer.refused });
          refused += 1;
          break;
        }
        this.#hooks.logger.debug('a page of history', { peer: key, channel: channel.channel, events: answer.page.events.length });
        // The first page with events is checked at once: what a reader waits for first.
        const first = withEvents === 0 && answer.page.events.length > 0;
        if (answer.page.events.length > 0) withEvents += 1;
        const prepared = this.#sync.prepareHistory(key, answer.page, first);
        inBackground(prepared, this.#hooks.logger, "checking a page of a peer's history");
        waiting.push(prepared);
        store();
        // The first events are stored before the next page is read: reading it would hold them back.
        if (first) await storing;
        if (failed !== undefined) throw failed;
        if (!answer.page.more) break;
        // Read: the serving hub may send another (the last page is not answered: the stream ends with it).
        // Answered only while few pages wait to be stored, so that a slow store holds the peer back.
        while (waiting.length >= PAGES_AHEAD && storing) await storing;
        await framed.write(encodeTaken());
      }
      // Once a batch failed, nothing more is stored: the pages left waiting are asked again at the next round.
      while ((storing || waiting.length > 0) && failed === undefined) {
        store();
        await storing;
      }
      await storing;
      if (failed !== undefined) throw failed;
      return refused === 0;
    } finally {
      await settled(stream.close());
    }
  }

  /** Takes a page; resolves with how many of its events were refused. */
  async #take(key: string, page: PreparedPage): Promise<number> {
    const taken = await this.#sync.take(page);
    let refused = 0;
    for (const outcome of taken) {
      if (!('dropped' in outcome)) continue;
      refused += 1;
      this.#hooks.countDrop(key, outcome.dropped);
      this.#hooks.logger.warn('an event of a peer\'s history was refused', { peer: key, reason: outcome.dropped, error: outcome.message });
    }
    return refused;
  }
}

/** A channel's digest in a few characters per stream: equal when it is unchanged. */
function fingerprintOf(channel: ChannelDigest): string {
  const streams = channel.streams.map((s) => `${Buffer.from(s.author).toString('hex')}:${s.thread}:${Buffer.from(s.epoch).toString('hex')}:${s.from}:${s.through}:${s.held}`);
  return `${channel.policy}/${channel.allowed}/${streams.sort().join(',')}`;
}
