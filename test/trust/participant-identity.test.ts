import crypto from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { KeyRing } from '../../src/trust/key-ring.js';
import { participantIdOf } from '../../src/trust/node-id.js';
import { tempHome } from '../helpers/hub.js';

/** A participant's identity as the hub makes it when it registers one (KeyRing.createParticipant). */
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function home(): string {
  const { home, cleanup } = tempHome('parley-identity-');
  cleanups.push(cleanup);
  return home;
}

const ring = (): KeyRing => new KeyRing(home());

describe('participant identity', () => {
  it('identity - the participant id is a hash of the Ed25519 public key', () => {
    const identity = ring().createParticipant();
    expect(identity.raw).toHaveLength(32);
    expect(identity.id).toBe(participantIdOf(identity.raw));
    expect(identity.id).toMatch(/^p_[a-z2-7]{26}$/);
    const expected = crypto.createHash('sha256').update(identity.raw).digest();
    // The first 26 base32 characters carry the first 130 bits of the digest.
    const bits = [...expected].map((b) => b.toString(2).padStart(8, '0')).join('').slice(0, 130);
    const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
    const encoded = bits.match(/.{5}/g)!.map((chunk) => alphabet[parseInt(chunk, 2)]).join('');
    expect(identity.id).toBe(`p_${encoded}`);
  });

  it('identity - the private key signs and the public key verifies, also once read back from its file', () => {
    const dir = home();
    const identity = new KeyRing(dir).createParticipant();
    const message = Buffer.from('parley');
    const signature = crypto.sign(null, message, identity.privateKey);
    expect(crypto.verify(null, message, identity.publicKey, signature)).toBe(true);
    const readBack = new KeyRing(dir).participant(identity.id);
    expect(readBack.raw).toEqual(identity.raw);
    expect(crypto.verify(null, message, readBack.publicKey, signature)).toBe(true);
  });

  it('identity - two identities never share an id', () => {
    const keys = ring();
    const ids = new Set(Array.from({ length: 50 }, () => keys.createParticipant().id));
    expect(ids.size).toBe(50);
  });
});
