/**
 * Dialling the hubs this one links to: now, or after a back-off that doubles
 * with each failed try (capped, with jitter so that hubs do not redial in
 * step). A dialled connection says hello (the links decide what follows); a
 * blocked hub (peer-blocks.ts) is not dialled.
 */

import type { Connection } from '@libp2p/interface';
import { inBackground } from '../util/background.js';
import type { Logger } from '../util/logger.js';
import type { LinkRecord, LinkTable } from './link-table.js';
import type { PeerNode } from './peer-node.js';

export interface DiallerHooks {
  node(): PeerNode;
  table: LinkTable;
  logger: Logger;
  helloTimeoutMs: number;
  redialMs: number;
  maxRedialMs: number;
  stopped(): boolean;
  blocked(key: string): boolean;
  /** Marks the link offline, with why. */
  offline(link: LinkRecord, reason: string): void;
  /** Says hello over a dialled connection; false: refused. */
  sayHello(link: LinkRecord, connection: Connection): Promise<boolean>;
}

export class LinkDialler {
  readonly #hooks: DiallerHooks;

  constructor(hooks: DiallerHooks) {
    this.#hooks = hooks;
  }

  /** Dials the link after `delayMs` (0: at once), instead of any dial already planned. */
  soon(link: LinkRecord, delayMs: number): void {
    clearTimeout(link.timer);
    if (this.#hooks.stopped() || link.addrs.length === 0 || this.#hooks.blocked(link.key)) return;
    link.timer = setTimeout(() => inBackground(this.#dial(link), this.#hooks.logger, `dialling peer ${link.key}`), delayMs);
    link.timer.unref();
  }

  /** The wait before the next redial of a link that failed `attempts` times. */
  backOff(link: LinkRecord): number {
    const base = Math.min(this.#hooks.maxRedialMs, this.#hooks.redialMs * 2 ** Math.min(link.attempts, 16));
    return Math.round(base * (0.75 + Math.random() * 0.5));
  }

  async #dial(link: LinkRecord): Promise<void> {
    const hooks = this.#hooks;
    if (hooks.stopped() || link.state === 'connected' || hooks.table.get(link.key) !== link) return;
    link.state = 'connecting';
    let connection: Connection;
    try {
      connection = await hooks.node().dial(link.addrs, AbortSignal.timeout(hooks.helloTimeoutMs));
    } catch (error) {
      if ((link.state as string) !== 'refused') hooks.offline(link, `could not dial: ${(error as Error).message}`);
      link.attempts += 1;
      this.soon(link, this.backOff(link));
      return;
    }
    if (!(await hooks.sayHello(link, connection))) {
      link.attempts += 1;
      this.soon(link, this.backOff(link));
    }
  }
}
