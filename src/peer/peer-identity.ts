import type { KeyObject } from 'node:crypto';
import { generateKeyPairFromSeed } from '@libp2p/crypto/keys';
import type { PrivateKey } from '@libp2p/interface';
import { ParleyError } from '../errors/parley-error.js';

/** The DER header Node puts before a raw Ed25519 seed in PKCS8. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * The hub's Ed25519 key as its libp2p identity: the same key, so the peer id
 * a hub dials is derived from the key the roster lists, and Noise proves
 * the hub holds it before any Parley protocol runs.
 */
export async function libp2pKeyOf(hubPrivateKey: KeyObject): Promise<PrivateKey> {
  const der = hubPrivateKey.export({ format: 'der', type: 'pkcs8' });
  if (der.length !== PKCS8_ED25519_PREFIX.length + 32 || !der.subarray(0, PKCS8_ED25519_PREFIX.length).equals(PKCS8_ED25519_PREFIX)) {
    throw new ParleyError('INTERNAL', "The hub's key is not an Ed25519 key; it cannot be this hub's peer identity.");
  }
  return generateKeyPairFromSeed('Ed25519', der.subarray(PKCS8_ED25519_PREFIX.length));
}
