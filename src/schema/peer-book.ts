/**
 * The hubs this home links to (`parley peer add`), as kept in `peers.json`:
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
});

export const PeerBookSchema = z.strictObject({
  peers: z.array(PeerBookEntrySchema).max(256, 'holds at most 256 peers'),
});

export type PeerBookEntry = z.output<typeof PeerBookEntrySchema>;
export type PeerBook = z.output<typeof PeerBookSchema>;
