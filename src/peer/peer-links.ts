/**
 * This hub's links to the other hubs of its roster. Each kept peer (the
 * home's peers.json) is dialled at start and redialled with back-off while it
 * is away; once Noise has proved a peer's key and the gater found it in the
 * roster, the two exchange signed hellos (hello.ts). A hello from another org,
 * or one that does not check out, ends the link with the reason logged and
 * counted; a newer roster a peer holds is fetched and taken on the roster's
 * own rules; the hubs a peer is linked to are dialled too, so adding one peer
 * links a team's every machine.
 */

import type { Connection, Stream } from '@libp2p/interface';
import type { Hub, PeerLinksView } from '../hub/index.js';
import { addToPeerBook, forgetLearned, learnPeers, parsePeerAddr, readPeerBook, removeFromPeerBook, type PeerBookEntry } from '../home/peer-book.js';
import { ParleyError } from '../errors/parley-error.js';
import type { Roster } from '../schema/roster.js';
import { formatPublicKey, parsePublicKey } from '../trust/node-id.js';
import { inBackground } from '../util/background.js';
import type { Logger } from '../util/logger.js';
import { HELLO_PROTOCOL, type Hello } from './hello.js';
import { answerHello, askHello } from './hello-exchange.js';
import { checkHello, dropReasonOf, helloFor, LinkRefused, refusalWords } from './hello-checks.js';
import { LinkTable, type LinkRecord, type PeerLinkInfo } from './link-table.js';
import { keyOfPeer, PeerNode, type RefusalReason } from './peer-node.js';
import { PeerBlocks } from './peer-blocks.js';
import { LinkDialler } from './link-dialler.js';
import { HelloRefresh } from './hello-refresh.js';
import { fetchRoster, ROSTER_PROTOCOL, sendRoster } from './roster-exchange.js';
import { EVENTS_PROTOCOL } from './event-frames.js';
import { EventLinks } from './event-links.js';
import { DEFAULT_ACK_TIMEOUT_MS, receiveEvents } from './event-stream.js';
import { PRESENCE_PROTOCOL, receivePresence } from './presence-gossip.js';
import { HISTORY_PROTOCOL } from './history-frames.js';
import { DEFAULT_HELLO_TIMEOUT_MS, DEFAULT_MAX_REDIAL_MS, DEFAULT_REDIAL_MS, type PeerLinksOptions } from './link-options.js';

export class PeerLinks implements PeerLinksView {
  readonly #hub: Hub;
  readonly #home: string;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #helloTimeoutMs: number;
  readonly #dialler: LinkDialler;
  readonly #table = new LinkTable();
  /** The connection each linked peer's hello went over. */
  readonly #connections = new Map<string, Connection>();
  readonly #events: EventLinks;
  /** Newer rosters being fetched from peers, by key. */
  readonly #rosterFetches = new Map<string, Promise<void>>();
  readonly #refresh: HelloRefresh;
  /** Hubs mDNS found that the roster does not list (told once each). */
  readonly #strangers = new Set<string>();
  readonly #blocks: PeerBlocks;
  #node!: PeerNode;
  #stopped = false;

  private constructor(options: PeerLinksOptions) {
    this.#hub = options.hub;
    this.#home = options.home;
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
    this.#helloTimeoutMs = options.helloTimeoutMs ?? DEFAULT_HELLO_TIMEOUT_MS;
    this.#dialler = new LinkDialler({
      node: () => this.#node,
      table: this.#table,
      logger: this.#logger,
      helloTimeoutMs: this.#helloTimeoutMs,
      redialMs: options.redialMs ?? DEFAULT_REDIAL_MS,
      maxRedialMs: options.maxRedialMs ?? DEFAULT_MAX_REDIAL_MS,
      stopped: () => this.#stopped,
      blocked: (key) => this.#blocks.until(key) !== undefined,
      offline: (link, reason) => this.#away(link, 'offline', reason),
      sayHello: (link, connection) => this.#sayHello(link, connection),
    });
    this.#blocks = new PeerBlocks(this.#now, (key) => this.#lifted(key));
    this.#refresh = new HelloRefresh({
      now: this.#now,
      logger: this.#logger,
      exchange: async (key) => {
        const link = this.#table.get(key);
        const connection = this.#connections.get(key);
        if (link && connection) await this.#exchangeHellos(link, connection);
        return link !== undefined && connection !== undefined;
      },
      settled: async (key) => {
        await this.#rosterFetches.get(key);
        await this.#events.hooks.ready(key);
      },
    });
    this.#events = new EventLinks({
      sync: options.hub.peerSync(),
      logger: options.logger,
      ackTimeoutMs: options.ackTimeoutMs ?? DEFAULT_ACK_TIMEOUT_MS,
      countDrop: (key, reason) => {
        const link = this.#table.get(key);
        if (link) this.#table.countDrop(link, reason);
      },
      heard: (key) => {
        const link = this.#table.get(key);
        if (link) link.lastSeen = this.#now();
      },
      lastSeen: (key) => this.#table.get(key)?.lastSeen ?? null,
      refresh: (key) => this.#refresh.ask(key),
    }, options.hub.config.presence.ttlSeconds * 1000);
  }

  /** Starts the node, serves the protocols and dials every kept peer. */
  static async start(options: PeerLinksOptions): Promise<PeerLinks> {
    const links = new PeerLinks(options);
    const book = readPeerBook(options.home);
    links.#node = await PeerNode.start({
      hub: options.hub,
      listen: options.listen,
      logger: options.logger,
      onRefused: (key, reason) => links.#refusedByGater(key, reason),
      isBlocked: (key) => links.#blocks.until(key) !== undefined,
      onDisconnected: (key) => links.#disconnected(key),
      mdns: options.mdns ?? (options.hub.config.peers.mdns ? {} : false),
      onDiscovered: (key, addrs) => links.#found(key, addrs, 'mdns'),
    });
    await links.#node.handle(HELLO_PROTOCOL, (stream, connection) => links.#answerHello(stream, connection));
    await links.#node.handle(ROSTER_PROTOCOL, (stream) => sendRoster(options.hub, stream, links.#helloTimeoutMs));
    await links.#node.handle(EVENTS_PROTOCOL, (stream, connection) => receiveEvents(stream, connection, links.#events.hooks));
    await links.#node.handle(PRESENCE_PROTOCOL, (stream, connection) => receivePresence(stream, connection, links.#events.hooks));
    await links.#node.handle(HISTORY_PROTOCOL, (stream, connection) => links.#events.history.serve(stream, connection));
    for (const entry of book) {
      if (!entry.learned) links.#keep(entry);
      else if (options.hub.mayLink(parsePublicKey(entry.key))) links.#table.addAddrs(links.#table.ensure(entry.key), [entry.addr]);
    }
    for (const link of links.#table.all()) links.#dialler.soon(link, 0);
    return links;
  }

  addrs(): string[] {
    return this.#node.addrs();
  }

  /** Each peer as `parley peer list` shows it; `now` (epoch ms) is what its lag is measured against. */
  list(now = this.#now()): PeerLinkInfo[] {
    const { sync } = this.#events.hooks;
    const gaps = sync.gaps();
    return this.#table.all().map((link) => this.#table.info(link, this.#events.backlog(link.key, now), { gaps: gaps.filter((g) => g.hubKey === link.key), archive: sync.isArchive(link.key) }));
  }

  async add(addr: string): Promise<{ link: PeerLinkInfo; added: boolean }> {
    const { key } = parsePeerAddr(addr);
    if (key === formatPublicKey(this.#selfRaw())) {
      throw new ParleyError('INVALID_INPUT', 'Invalid addr: it is this hub\'s own address; add another hub\'s, as "parley peer self" prints it there.', { field: 'addr' });
    }
    const { entry, added } = addToPeerBook(this.#home, addr, new Date(this.#now()));
    const link = this.#keep(entry);
    if (link.state !== 'connected') {
      link.attempts = 0;
      this.#dialler.soon(link, 0);
    }
    return { link: this.#table.info(link), added };
  }

  async remove(keyOrAddr: string): Promise<string[]> {
    const removed = removeFromPeerBook(this.#home, keyOrAddr);
    const stillKept = new Set(readPeerBook(this.#home).map((kept) => kept.key));
    for (const entry of removed) {
      const link = this.#table.get(entry.key);
      if (!link) continue;
      link.addrs = link.addrs.filter((addr) => addr !== entry.addr);
      if (stillKept.has(entry.key)) continue;
      this.#table.delete(entry.key);
      await this.#cut(entry.key, 'removed');
    }
    return removed.map((entry) => entry.addr);
  }

  /** The link of a peer kept in the home, with the address it was kept at. */
  #keep(entry: PeerBookEntry): LinkRecord {
    const link = this.#table.ensure(entry.key);
    link.configured = true;
    this.#table.addAddrs(link, [entry.addr]);
    return link;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    for (const link of this.#table.all()) clearTimeout(link.timer);
    this.#blocks.stop();
    this.#events.stop();
    await this.#node.stop();
  }

  // Hellos ---------------------------------------------------------------------

  /**
   * Sends this hub's hello over `connection` and reads the peer's: at the
   * start of a link, and again when this hub's roster changes (so a peer
   * holding an older version fetches the new one). False: refused.
   */
  async #sayHello(link: LinkRecord, connection: Connection): Promise<boolean> {
    try {
      await this.#exchangeHellos(link, connection);
      return true;
    } catch (error) {
      await this.#refuse(link, connection, error);
      return false;
    }
  }

  async #exchangeHellos(link: LinkRecord, connection: Connection): Promise<void> {
    const reply = await askHello(connection, this.#helloFor(link.key), this.#helloTimeoutMs);
    this.#linked(link.key, this.#checkHello(reply, link.key), connection);
  }

  /** The roster in force changed (an operator's import, or a peer's newer version): links it no longer allows close; the others hear of it. */
  async rosterChanged(): Promise<void> {
    await this.#recheck();
    for (const [key, connection] of [...this.#connections]) {
      const link = this.#table.get(key);
      if (link) await this.#sayHello(link, connection);
    }
  }

  async #answerHello(stream: Stream, connection: Connection): Promise<void> {
    const key = keyOfPeer(connection.remotePeer);
    if (key === undefined) {
      stream.abort(new Error('not a hub key'));
      return;
    }
    const link = this.#table.ensure(key);
    let hello: Hello | undefined;
    try {
      await answerHello(stream, this.#helloTimeoutMs, (frame) => {
        hello = this.#checkHello(frame, key);
        return this.#helloFor(key);
      });
    } catch (error) {
      await this.#refuse(link, connection, error, 'answered');
      return;
    }
    this.#linked(key, hello!, connection);
  }

  #checkHello(frame: Uint8Array, key: string): Hello {
    return checkHello(this.#hub, frame, key, this.#now());
  }

  #helloFor(key: string): Uint8Array {
    const known = [...this.#connections.keys()].map((other) => ({ key: other, addrs: this.#table.get(other)?.addrs ?? [] }));
    return helloFor(this.#hub, key, { addrs: this.#node.addrs(), known, now: this.#now() });
  }

  #selfRaw(): Uint8Array {
    return parsePublicKey(this.#hub.peerIdentity().key);
  }

  #linked(key: string, hello: Hello, connection: Connection): void {
    const link = this.#table.ensure(key);
    clearTimeout(link.timer);
    link.state = 'connected';
    link.reason = null;
    link.attempts = 0;
    link.name = hello.name;
    link.lastSeen = this.#now();
    link.participants = hello.participants.map((p) => ({ handle: p.handle, key: formatPublicKey(p.key), kind: p.kind }));
    this.#table.addAddrs(link, hello.addrs);
    this.#connections.set(key, connection);
    this.#logger.info('peer linked', { peer: key, name: hello.name });
    this.#events.linked(key, hello, connection);
    const roster = this.#hub.roster().current;
    if (roster && hello.rosterVersion > roster.version && !this.#rosterFetches.has(key)) {
      const fetching = this.#fetchRoster(link, connection).finally(() => this.#rosterFetches.delete(key));
      this.#rosterFetches.set(key, fetching);
      inBackground(fetching, this.#logger, `fetching the roster of peer ${key}`);
    }
    this.#learn(hello.known);
  }

  /** Dials the hubs a peer is linked to that this hub may link with and is not linked to. */
  #learn(known: Hello['known']): void {
    for (const entry of known) this.#found(formatPublicKey(entry.key), entry.addrs, 'hello');
    // Kept, so that after a restart this hub finds them even while the hub that named them is away.
    const addrs = known.filter((entry) => this.#hub.mayLink(entry.key)).flatMap((entry) => entry.addrs);
    if (addrs.length > 0) learnPeers(this.#home, addrs.filter((addr) => !addr.includes(`/p2p/${this.#node.peerId}`)), new Date(this.#now()));
  }

  /** A hub a peer's hello named or mDNS found: dialled if the roster lists it (else the gater would refuse it; said once). */
  #found(key: string, addrs: readonly string[], how: 'hello' | 'mdns'): void {
    if (key === formatPublicKey(this.#selfRaw())) return;
    if (!this.#hub.mayLink(parsePublicKey(key))) {
      if (how === 'mdns' && !this.#strangers.has(key)) {
        this.#strangers.add(key);
        this.#logger.info('a hub found on the LAN is not a hub of the roster in force: not linked', { peer: key, addrs });
      }
      return;
    }
    const link = this.#table.ensure(key);
    this.#table.addAddrs(link, addrs);
    if (link.state === 'offline' && link.timer === undefined) this.#dialler.soon(link, 0);
  }

  // Rosters --------------------------------------------------------------------

  async #fetchRoster(link: LinkRecord, connection: Connection): Promise<void> {
    let roster: Roster;
    try {
      roster = await fetchRoster(this.#hub, connection, this.#helloTimeoutMs);
    } catch (error) {
      this.#table.countDrop(link, 'roster-refused');
      this.#logger.warn('a roster a peer offered was refused', { peer: link.key, error: (error as Error).message });
      return;
    }
    // The hub tells rosterChanged() of it, as of any new version.
    this.#logger.info('took a newer roster from a peer', { peer: link.key, org: roster.org_id, version: roster.version });
  }

  /** After the roster changed: the links it no longer allows are closed. */
  async #recheck(): Promise<void> {
    forgetLearned(this.#home, (key) => this.#hub.mayLink(parsePublicKey(key)));
    for (const key of [...this.#connections.keys()]) {
      if (this.#hub.mayLink(parsePublicKey(key))) continue;
      const link = this.#table.get(key);
      if (link) this.#table.countDrop(link, 'removed-from-roster');
      await this.#cut(key, 'no longer a hub of the roster in force');
    }
  }

  /** Ends the link to the hub holding `key`, refused for `reason` (in words): its streams stop and it is hung up on. */
  async #cut(key: string, reason: string): Promise<void> {
    const link = this.#table.get(key);
    if (link) this.#away(link, 'refused', reason);
    const connection = this.#connections.get(key);
    this.#events.unlinked(key);
    this.#connections.delete(key);
    if (connection) await this.#node.hangUp(connection);
  }

  // Ends ---------------------------------------------------------------------

  async #refuse(link: LinkRecord, connection: Connection, error: unknown, side: 'dialled' | 'answered' = 'dialled'): Promise<void> {
    const reason = dropReasonOf(error);
    const message = refusalWords(error, side);
    this.#table.countDrop(link, reason);
    this.#away(link, 'refused', message);
    this.#logger.warn('peer link refused', { peer: link.key, reason, error: message });
    this.#events.unlinked(link.key);
    this.#connections.delete(link.key);
    // A hello this hub could not read or check, from a hub of its roster, ends only that stream: the
    // peer may send a good one on the same connection. A hub this one does not link with is hung up on.
    if (side === 'answered' && !(error instanceof LinkRefused)) return;
    try {
      await this.#node.hangUp(connection);
    } catch {
      // Closed already.
    }
  }

  #refusedByGater(key: string, reason: RefusalReason): void {
    const link = this.#table.ensure(key);
    this.#table.countDrop(link, reason);
    const words = { 'local-mode': 'this hub has no roster in force (local mode): it never links', 'not-in-roster': 'its key is not a hub of the roster in force', blocked: this.#blockedWords(key) };
    this.#away(link, 'refused', words[reason]);
  }

  /** Blocks (peer-blocks.ts): cuts the link to the hub holding `key` for `forMs`: hung up on, not dialled, and refused until the block runs out or is lifted. */
  async block(key: string, forMs: number): Promise<PeerLinkInfo> {
    const link = this.#table.ensure(key);
    this.#blocks.block(key, forMs);
    clearTimeout(link.timer);
    await this.#cut(key, this.#blockedWords(key));
    return this.#table.info(link);
  }

  /** Lifts a block (false: the hub was not blocked); the hub is dialled again. */
  unblock(key: string): boolean {
    return this.#blocks.unblock(key);
  }

  #lifted(key: string): void {
    const link = this.#table.get(key);
    if (!link || link.state === 'connected') return;
    this.#away(link, 'offline', 'its block was lifted');
    link.attempts = 0;
    this.#dialler.soon(link, 0);
  }

  #blockedWords(key: string): string {
    return `blocked by the operator until ${new Date(this.#blocks.until(key) ?? this.#now()).toISOString()} (parley peer unblock lifts it)`;
  }

  #disconnected(key: string): void {
    const link = this.#table.get(key);
    this.#events.unlinked(key);
    this.#connections.delete(key);
    if (!link || link.state !== 'connected') return;
    this.#away(link, 'offline', 'the link closed');
    this.#logger.info('peer link closed', { peer: key });
    this.#dialler.soon(link, this.#dialler.backOff(link));
  }

  #away(link: LinkRecord, state: 'offline' | 'refused', reason: string): void {
    link.state = state;
    link.reason = reason;
  }
}
