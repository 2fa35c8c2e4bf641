/**
 * The hubs this home links to (`parley peer add`, and those learned from linked hubs), as kept in `peers.json`:
 * each by the multiaddr it was added with, which ends in its peer id, and the
 * key that peer id stands for.
 */

import { z } from 'zod';
import { PublicKeyTextSchema } from './roster.js';

/** Base58btc, as libp2p writes peer ids (an Ed25519 one is 52 characters, "12D3KooW…"). */
const PEER_ID = '[1-9A-HJ-NP-Za-km-z]{46,60}';

/** A TCP multiaddr that ends in the hub's peer id, as `parley peer self` prints it. */
export const PeerAddrSchema = z
  .string({ error: 'must be a multiaddr (text), as "parley peer self" prints it: /ip4/HOST/tcp/PORT/p2p/PEER_ID' })
  .max(1024, 'must be at most 1024 characters')
  .regex(
    new RegExp(`^/(ip4|ip6|dns|dns4|dns6)/[^/\\s]+/tcp/[0-9]{1,5}/p2p/${PEER_ID}$`),
    'must be a TCP multiaddr ending in the hub\'s peer id, as "parley peer self" prints it: /ip4/HOST/tcp/PORT/p2p/PEER_ID',
  );

export const PeerBookEntrySchema = z.strictObject({
  addr: PeerAddrSchema,
  /** The hub's key, read from the peer id: what `parley peer remove KEY` and the roster name it by. */
  key: PublicKeyTextSchema,
  /** When it was added (ISO 8601). */
  added: z.string().datetime(),
  /**
   * Learned from a linked hub's hello, not added by `parley peer add`: dialled
   * at start while the roster lists it, so the team's links do not hang on the
   * one hub that was added. `parley peer add` of its address makes it kept.
   */
  learned: z.literal(true).optional(),
});

/** A home keeps at most this many peer addresses. */
export const MAX_PEERS = 256;

export const PeerBookSchema = z.strictObject({
  peers: z.array(PeerBookEntrySchema).max(MAX_PEERS, `holds at most ${MAX_PEERS} peers`),
});

export type PeerBookEntry = z.output<typeof PeerBookEntrySchema>;
export type PeerBook = z.output<typeof PeerBookSchema>;
