import type { ParticipantKind } from '../schema/participant.js';

/**
 * What the running peer node tells the hub (the peer layer sits above it and
 * attaches itself): where it listens. The links' states come next.
 */
export interface PeerLinksView {
  /** Where peers can dial this hub, each ending in /p2p/<peer id>. */
  addrs(): string[];
}

/** `parley peer self`: this hub as another hub's roster takes it (`parley roster add --from FILE`). */
export interface PeerSelf {
  /** The hub's public key, `ed25519:…`. */
  key: string;
  /** `h_` and the hash of that key. */
  id: string;
  name: string;
  /** Empty when no peer listener runs. */
  addrs: string[];
  /** The participants this hub hosts, with their keys. */
  participants: Array<{ handle: string; key: string; kind: ParticipantKind }>;
}
