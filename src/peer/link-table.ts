/**
 * What this hub knows of each hub it links to, by key: where it listens, the
 * state of the link, when it was last heard from, and what was dropped from
 * it and why. `parley peer list`, `parley status` and the page show it.
 */

import type { DropReason, LinkState, PeerLinkInfo } from '../schema/peer-link.js';
import { hubIdOf, parsePublicKey } from '../trust/node-id.js';

export type { DropReason, LinkState, PeerLinkInfo } from '../schema/peer-link.js';

export interface LinkRecord {
  key: string;
  name: string;
  /** Addresses from the peer book, then the ones it announced; tried in this order. */
  addrs: string[];
  configured: boolean;
  state: LinkState;
  reason: string | null;
  lastSeen: number | null;
  drops: Map<DropReason, number>;
  participants: PeerLinkInfo['participants'];
  /** Redial attempts since the link was last up (for the back-off). */
  attempts: number;
  timer: NodeJS.Timeout | undefined;
}

export class LinkTable {
  readonly #links = new Map<string, LinkRecord>();

  get(key: string): LinkRecord | undefined {
    return this.#links.get(key);
  }

  /** The record of `key`, made (offline, with no address) if there was none. */
  ensure(key: string): LinkRecord {
    let link = this.#links.get(key);
    if (!link) {
      parsePublicKey(key, 'key');
      link = { key, name: '', addrs: [], configured: false, state: 'offline', reason: null, lastSeen: null, drops: new Map(), participants: [], attempts: 0, timer: undefined };
      this.#links.set(key, link);
    }
    return link;
  }

  /** Adds addresses a link may be dialled at, keeping the ones it had first. */
  addAddrs(link: LinkRecord, addrs: readonly string[]): void {
    for (const addr of addrs) if (!link.addrs.includes(addr)) link.addrs.push(addr);
  }

  delete(key: string): void {
    const link = this.#links.get(key);
    clearTimeout(link?.timer);
    this.#links.delete(key);
  }

  all(): LinkRecord[] {
    return [...this.#links.values()];
  }

  countDrop(link: LinkRecord, reason: DropReason): void {
    link.drops.set(reason, (link.drops.get(reason) ?? 0) + 1);
  }

  info(link: LinkRecord, backlog = { queued: 0, lagSeconds: 0 }, history: Pick<PeerLinkInfo, 'gaps' | 'archive'> = { gaps: [], archive: false }): PeerLinkInfo {
    return {
      key: link.key,
      id: hubIdOf(parsePublicKey(link.key, 'key')),
      name: link.name,
      addrs: [...link.addrs],
      state: link.state,
      reason: link.reason,
      lastSeen: link.lastSeen === null ? null : new Date(link.lastSeen).toISOString(),
      queued: backlog.queued,
      lagSeconds: backlog.lagSeconds,
      drops: Object.fromEntries(link.drops),
      configured: link.configured,
      participants: link.participants.map((p) => ({ ...p })),
      ...history,
    };
  }
}
