import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateIdentity, participantIdOf } from '../../src/hub/identity.js';

describe('identity', () => {
  it('identity - the participant id is a hash of the Ed25519 public key', () => {
    const identity = generateIdentity();
    expect(identity.publicKey).toHaveLength(32);
    expect(identity.id).toBe(participantIdOf(identity.publicKey));
    expect(identity.id).toMatch(/^p_[a-z2-7]{26}$/);
    const expected = crypto.createHash('sha256').update(identity.publicKey).digest();
    // The first 26 base32 characters carry the first 130 bits of the digest.
    const bits = [...expected].map((b) => b.toString(2).padStart(8, '0')).join('').slice(0, 130);
    const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
    const encoded = bits.match(/.{5}/g)!.map((chunk) => alphabet[parseInt(chunk, 2)]).join('');
    expect(identity.id).toBe(`p_${encoded}`);
  });

  it('identity - the secret key signs and the public key verifies', () => {
    const identity = generateIdentity();
    const privateKey = crypto.createPrivateKey({ key: identity.secretKey, format: 'der', type: 'pkcs8' });
    const publicKey = crypto.createPublicKey({
      key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), identity.publicKey]),
      format: 'der',
      type: 'spki',
    });
    const message = Buffer.from('parley');
    expect(crypto.verify(null, message, publicKey, crypto.sign(null, message, privateKey))).toBe(true);
  });

  it('identity - two identities never share an id', () => {
    const ids = new Set(Array.from({ length: 50 }, () => generateIdentity().id));
    expect(ids.size).toBe(50);
  });
});
