/**
 * Hellos asked again of a linked peer that sent events of a participant this
 * hub does not know it hosts (they can overtake the hello and the roster
 * naming them): at most one a second per peer, so that forged events get no
 * hello a page.
 */

import type { Logger } from '../util/logger.js';

export interface HelloRefreshHooks {
  now(): number;
  logger: Logger;
  /** Exchanges hellos with the linked peer again; false when it is not linked. Throws when the hello does not come or is refused. */
  exchange(key: string): Promise<boolean>;
  /** Resolves once what the peer's hello brought is taken (a newer roster fetched, its participants registered). */
  settled(key: string): Promise<void>;
}

export class HelloRefresh {
  readonly #hooks: HelloRefreshHooks;
  /** The last hello asked of each peer again, and when. */
  readonly #asked = new Map<string, { at: number; done: Promise<boolean> }>();

  constructor(hooks: HelloRefreshHooks) {
    this.#hooks = hooks;
  }

  /** Resolves once this hub holds what the peer's hello says; false when none was asked (not linked, or asked in the last second). */
  ask(key: string): Promise<boolean> {
    const last = this.#asked.get(key);
    if (last && this.#hooks.now() - last.at < 1000) return last.done;
    const done = (async () => {
      try {
        if (!(await this.#hooks.exchange(key))) return false;
      } catch (error) {
        // The link stands: what was refused stays refused, counted.
        this.#hooks.logger.warn("a linked peer's hello, asked again, did not come", { peer: key, error: (error as Error).message });
        return false;
      }
      await this.#hooks.settled(key);
      return true;
    })();
    this.#asked.set(key, { at: this.#hooks.now(), done });
    return done;
  }
}
