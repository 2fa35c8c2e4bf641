/**
 * The hub's peer links as `parley serve` runs them: started at once when the
 * hub listens for peers, looks for them by mDNS or keeps peers in its home, else at the first
 * `parley peer add` (then dialling only), so a hub that never links never
 * loads libp2p's node. What the hub's surfaces call (PeerLinksView).
 */

import type { Hub, PeerLinksView } from '../hub/index.js';
import { readPeerBook, removeFromPeerBook } from '../home/peer-book.js';
import { settled } from '../util/background.js';
import type { Logger } from '../util/logger.js';
import type { PeerLinkInfo } from './link-table.js';
import type { PeerLinks } from './peer-links.js';

export class LinksOnDemand implements PeerLinksView {
  readonly #options: { hub: Hub; home: string; listen: readonly string[]; logger: Logger };
  #links: PeerLinks | undefined;
  #starting: Promise<PeerLinks> | undefined;

  private constructor(options: { hub: Hub; home: string; listen: readonly string[]; logger: Logger }) {
    this.#options = options;
  }

  /** Starts the links now if there is anything to link (a listener, kept peers, mDNS); the view either way. */
  static async start(options: { hub: Hub; home: string; listen: readonly string[]; logger: Logger }): Promise<LinksOnDemand> {
    const onDemand = new LinksOnDemand(options);
    if (options.listen.length > 0 || options.hub.config.peers.mdns || readPeerBook(options.home).length > 0) await onDemand.#running();
    return onDemand;
  }

  /** Whether the links run (a listener, kept peers, or a peer added since the start). */
  get running(): PeerLinks | undefined {
    return this.#links;
  }

  addrs(): string[] {
    return this.#links?.addrs() ?? [];
  }

  list(): PeerLinkInfo[] {
    return this.#links?.list() ?? [];
  }

  async add(addr: string): Promise<{ link: PeerLinkInfo; added: boolean }> {
    return (await this.#running()).add(addr);
  }

  async remove(keyOrAddr: string): Promise<string[]> {
    if (this.#links) return this.#links.remove(keyOrAddr);
    return removeFromPeerBook(this.#options.home, keyOrAddr).map((entry) => entry.addr);
  }

  async block(key: string, forMs: number): Promise<PeerLinkInfo> {
    return (await this.#running()).block(key, forMs);
  }

  unblock(key: string): boolean {
    return this.#links?.unblock(key) ?? false;
  }

  async rosterChanged(): Promise<void> {
    await this.#links?.rosterChanged();
  }

  async stop(): Promise<void> {
    // A start under way ends first (its failure is its caller's to report).
    if (this.#starting) await settled(this.#starting);
    await this.#links?.stop();
  }

  #running(): Promise<PeerLinks> {
    if (this.#links) return Promise.resolve(this.#links);
    // Loaded here: libp2p is loaded only by a hub that links.
    this.#starting ??= import('./peer-links.js').then(({ PeerLinks }) => PeerLinks.start(this.#options)).then(
      (links) => (this.#links = links),
      (error: unknown) => {
        this.#starting = undefined;
        throw error;
      },
    );
    return this.#starting;
  }
}
