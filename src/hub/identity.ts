import crypto from 'node:crypto';
import { participantIdOf, rawPublicKeyOf } from '../trust/node-id.js';

/**
 * Participant identity: an Ed25519 key pair; the id is a hash of the public
 * key, so it stays the same wherever the participant's events travel (see
 * src/trust/node-id.ts, where the id is defined).
 */
export { participantIdOf };

export interface KeyMaterial {
  id: string;
  publicKey: Buffer;
  secretKey: Buffer;
}

export function generateIdentity(): KeyMaterial {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ed25519');
  const raw = rawPublicKeyOf(publicKey);
  return {
    id: participantIdOf(raw),
    publicKey: raw,
    secretKey: privateKey.export({ type: 'pkcs8', format: 'der' }),
  };
}
