import type { KeyObject } from 'node:crypto';
import { generateKeyPairFromSeed } from '@libp2p/crypto/keys';
import type { PrivateKey } from '@libp2p/interface';
import { seedOf } from '../trust/node-id.js';

/**
 * The hub's Ed25519 key as its libp2p identity: the same key, so the peer id
 * a hub dials is derived from the key the roster lists, and Noise proves
 * the hub holds it before any Parley protocol runs.
 */
export function libp2pKeyOf(hubPrivateKey: KeyObject): Promise<PrivateKey> {
  return generateKeyPairFromSeed('Ed25519', seedOf(hubPrivateKey));
}
