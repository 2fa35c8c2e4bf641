// How a hub's peer links are set up (peer-links.ts): where they listen, how
// they log, how long a hello may take, how they redial, whether mDNS looks
// for hubs on the LAN.

import type { Hub } from '../hub/index.js';
import type { Logger } from '../util/logger.js';

/** How long a hello (or a roster) may take to arrive. */
export const DEFAULT_HELLO_TIMEOUT_MS = 10_000;
/** The first redial comes after this; each failure doubles it... */
export const DEFAULT_REDIAL_MS = 1000;
/** ...up to this. */
export const DEFAULT_MAX_REDIAL_MS = 60_000;

export interface PeerLinksOptions {
  hub: Hub;
  home: string;
  /** Multiaddrs to listen on; none: this hub only dials. */
  listen: readonly string[];
  logger: Logger;
  now?: () => number;
  helloTimeoutMs?: number;
  redialMs?: number;
  maxRedialMs?: number;
  /** A peer that does not acknowledge a page within this is cut off. */
  ackTimeoutMs?: number;
  /** mDNS on the LAN; unset: as config peers.mdns says (`port` and `intervalMs` for tests). */
  mdns?: false | { port?: number; intervalMs?: number };
}
