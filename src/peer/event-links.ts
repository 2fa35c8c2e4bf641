/**
 * What every link carries: the fan-out (event-stream.ts), a sender per
 * linked peer on the connection its hello went over; presence
 * (presence-gossip.ts); and the registration of the participants each peer
 * hosts, which both wait for.
 */

import type { Connection } from '@libp2p/interface';
import type { Hello } from './hello.js';
import { EventSender, type EventLinkHooks } from './event-stream.js';
import { PresenceTeller } from './presence-gossip.js';
import { HistorySync } from './history-sync.js';

export class EventLinks {
  readonly hooks: EventLinkHooks;
  readonly #senders = new Map<string, EventSender>();
  readonly #ready = new Map<string, Promise<void>>();

  readonly #presence: PresenceTeller;
  /** History sync with the linked peers (history-sync.ts). */
  readonly history: HistorySync;

  constructor(hooks: Omit<EventLinkHooks, 'ready'>, presenceTtlMs: number) {
    this.hooks = { ...hooks, ready: (key) => this.#ready.get(key) };
    this.#presence = new PresenceTeller(hooks.sync, hooks.logger, presenceTtlMs);
    this.history = new HistorySync({ ...this.hooks, connections: () => new Map([...this.#senders].map(([key, sender]) => [key, sender.connection])) });
  }

  /**
   * Registers the participants the peer's hello names (at each hello, as they
   * change), then sends the peer this hub's events on this connection; a
   * sender on an older connection of the same peer stops.
   */
  linked(key: string, hello: Hello, connection: Connection): void {
    const ready = this.hooks.sync.hosted({ key, name: hello.name }, hello.participants);
    // A failed registration is logged; the peer's events are then refused as not hosted, and counted.
    this.#ready.set(key, ready.catch((error: unknown) => this.hooks.logger.error('could not register the participants a peer hosts', { peer: key, error })));
    this.#presence.linked(key, connection);
    const sender = this.#senders.get(key);
    if (sender?.connection === connection) return;
    sender?.stop();
    this.#senders.set(key, new EventSender(key, connection, this.hooks));
    this.history.linked(key);
  }

  /** The link to `key` ended: its fan-out stops (it resumes from the peer's cursor when the link is back). */
  unlinked(key: string): void {
    if (this.#senders.has(key)) this.#presence.unlinked(key);
    this.#senders.get(key)?.stop();
    this.#senders.delete(key);
    this.#ready.delete(key);
  }

  stop(): void {
    this.history.stop();
    this.#presence.stop();
    for (const key of [...this.#senders.keys()]) this.unlinked(key);
  }

  /**
   * What waits for the peer: this hub's own events that may cross and that
   * it has not acknowledged (some may be in channels it may not read), and
   * for how long the oldest of them has waited, in whole seconds.
   */
  backlog(key: string, now: number): { queued: number; lagSeconds: number } {
    const queued = this.hooks.sync.waiting(key);
    const since = queued > 0 ? this.hooks.sync.waitingSince(key) : null;
    return { queued, lagSeconds: since === null ? 0 : Math.max(0, Math.floor((now - since) / 1000)) };
  }
}
