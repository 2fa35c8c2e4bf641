import crypto from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cachedPublicKey,
  formatPublicKey,
  parsePublicKey,
  participantIdOf,
  privateKeyFromSeed,
  seedOf,
  publicKeyFromRaw,
  rawPublicKeyOf,
  shortIdOf,
} from '../../src/trust/node-id.js';
import { refusal } from '../helpers/refusal.js';

describe('node ids and key text', () => {
  it('node-id - the fixed seed 0x01… gives the well-known Ed25519 public key, and its id', () => {
    const key = privateKeyFromSeed(Buffer.alloc(32, 1));
    const raw = rawPublicKeyOf(key);
    expect(raw.toString('hex')).toBe('8a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c');
    expect(rawPublicKeyOf(crypto.createPublicKey(key))).toEqual(raw);
    expect(formatPublicKey(raw)).toBe('ed25519:iojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1w');
    expect(shortIdOf(participantIdOf(raw))).toBe(participantIdOf(raw).slice(0, 10));
  });

  it('node-id - a key from raw bytes verifies what the private key signed; the cache returns the same KeyObject', () => {
    const key = privateKeyFromSeed(Buffer.alloc(32, 7));
    const raw = rawPublicKeyOf(key);
    const sig = crypto.sign(null, Buffer.from('parley'), key);
    expect(crypto.verify(null, Buffer.from('parley'), publicKeyFromRaw(raw), sig)).toBe(true);
    expect(cachedPublicKey(raw)).toBe(cachedPublicKey(Buffer.from(raw)));
  });

  it('node-id - a private key gives back the seed it was made from; a public key is refused', () => {
    const seed = crypto.randomBytes(32);
    const key = privateKeyFromSeed(seed);
    expect(seedOf(key).equals(seed)).toBe(true);
    expect(seedOf(crypto.generateKeyPairSync('ed25519').privateKey)).toHaveLength(32);
    expect(refusal(() => seedOf(crypto.createPublicKey(key)), 'INVALID_INPUT').field).toBe('key');
    expect(refusal(() => seedOf(crypto.generateKeyPairSync('x25519').privateKey), 'INVALID_INPUT').field).toBe('key');
  });

  it('node-id - the text form round-trips for any key', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (raw) => {
        const text = formatPublicKey(raw);
        expect(text).toMatch(/^ed25519:[A-Za-z0-9_-]{43}$/);
        expect(new Uint8Array(parsePublicKey(text))).toEqual(raw);
      }),
    );
  });

  it('node-id - bad key text is refused naming the field and saying the form', () => {
    const good = formatPublicKey(Buffer.alloc(32, 9));
    for (const bad of ['', 'ed25519:', good.slice(8), `ED25519:${good.slice(8)}`, `${good}=`, `${good}A`, good.replace('ed25519:', 'x25519:'), `ed25519:${'+'.repeat(43)}`, 42, null]) {
      const error = refusal(() => parsePublicKey(bad, 'members.0.pubkey'), 'INVALID_INPUT');
      expect(error.field).toBe('members.0.pubkey');
      expect(error.message).toContain('ed25519:');
    }
    // Same bytes, other spelling (the spare low bits of the last character set): refused, so a key has one text.
    const respelled = `${good.slice(0, -1)}${String.fromCharCode(good.charCodeAt(good.length - 1) + 1)}`;
    expect(Buffer.from(respelled.slice(8), 'base64url')).toEqual(Buffer.from(good.slice(8), 'base64url'));
    expect(refusal(() => parsePublicKey(respelled), 'INVALID_INPUT').message).toContain('canonical');
  });

  it('node-id - wrong lengths are refused', () => {
    expect(refusal(() => formatPublicKey(Buffer.alloc(31), 'from'), 'INVALID_INPUT').field).toBe('from');
    expect(refusal(() => publicKeyFromRaw(Buffer.alloc(33)), 'INVALID_INPUT').field).toBe('pubkey');
    expect(refusal(() => privateKeyFromSeed(Buffer.alloc(16)), 'INVALID_INPUT').field).toBe('seed');
    expect(refusal(() => rawPublicKeyOf(crypto.generateKeyPairSync('x25519').publicKey), 'INVALID_INPUT').field).toBe('key');
  });
});
