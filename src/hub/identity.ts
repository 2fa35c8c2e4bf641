import crypto from 'node:crypto';

/**
 * Participant identity: an Ed25519 key pair; the id is a hash of the public
 * key, so it stays the same wherever the participant's events travel.
 */
export interface KeyMaterial {
  id: string;
  publicKey: Buffer;
  secretKey: Buffer;
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

function base32(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

export function participantIdOf(rawPublicKey: Uint8Array): string {
  const digest = crypto.createHash('sha256').update(rawPublicKey).digest();
  return `p_${base32(digest).slice(0, 26)}`;
}

export function generateIdentity(): KeyMaterial {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ed25519');
  // The raw key is the last 32 bytes of the SPKI DER encoding.
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const raw = spki.subarray(spki.length - 32);
  return {
    id: participantIdOf(raw),
    publicKey: Buffer.from(raw),
    secretKey: privateKey.export({ type: 'pkcs8', format: 'der' }),
  };
}
