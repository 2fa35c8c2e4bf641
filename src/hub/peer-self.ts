import type { ParticipantKind } from '../schema/participant.js';
import type { PeerLinkInfo } from '../schema/peer-link.js';

/**
 * What the running peer links tell the hub (the peer layer sits above it and
 * attaches itself), so the hub's surfaces can show and change them: where
 * this hub listens, each link, and the peers kept in the home.
 */
export interface PeerLinksView {
  /** Where peers can dial this hub, each ending in /p2p/<peer id>. */
  addrs(): string[];
  /** Every hub this one links to or knows of. */
  list(): PeerLinkInfo[];
  /** Keeps a peer in the home and dials it now; `added` is false when the address was kept already. */
  add(addr: string): Promise<{ link: PeerLinkInfo; added: boolean }>;
  /** Forgets a kept peer (by key, or one address) and closes its links; the addresses removed. */
  remove(keyOrAddr: string): Promise<string[]>;
  /** Cuts the link to the hub holding `key` for `forMs` (parley peer block): refused and not dialled until the block runs out or is lifted. */
  block(key: string, forMs: number): Promise<PeerLinkInfo>;
  /** Lifts a block (parley peer unblock); false when the hub was not blocked. */
  unblock(key: string): boolean;
  /** The roster in force changed: links it no longer allows close, and linked peers hear of the new version. */
  rosterChanged(): Promise<void>;
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
