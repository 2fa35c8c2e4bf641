import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newHubProofNonce, signHubProof, verifyHubProof } from '../../src/trust/hub-proof.js';
import { formatPublicKey, privateKeyFromSeed, rawPublicKeyOf } from '../../src/trust/node-id.js';

/** A hub's proof: its key's signature over the Host it was asked at and the client's nonce, good for nothing else. */
const hubKey = privateKeyFromSeed(Buffer.alloc(32, 7));
const key = formatPublicKey(rawPublicKeyOf(hubKey));
const HOST = '127.0.0.1:41000';

describe('hub proof', () => {
  it('hub proof - a signature by the hub key over the Host and nonce verifies against that key', () => {
    const nonce = newHubProofNonce();
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(verifyHubProof(key, HOST, nonce, signHubProof(hubKey, HOST, nonce))).toBe(true);
    // The Host is compared as URLs and the guard spell it: in lower case.
    expect(verifyHubProof(key, 'LOCALHOST:41000', nonce, signHubProof(hubKey, 'localhost:41000', nonce))).toBe(true);
  });

  it('hub proof - a proof for another nonce, another Host or by another key does not verify', () => {
    const nonce = newHubProofNonce();
    const signature = signHubProof(hubKey, HOST, nonce);
    expect(verifyHubProof(key, HOST, newHubProofNonce(), signature)).toBe(false);
    // Passed on by a relay listening elsewhere: the hub signed the Host it was asked at.
    expect(verifyHubProof(key, '127.0.0.1:7420', nonce, signature)).toBe(false);
    const other = crypto.generateKeyPairSync('ed25519').privateKey;
    expect(verifyHubProof(key, HOST, nonce, signHubProof(other, HOST, nonce))).toBe(false);
  });

  it('hub proof - a malformed key or signature is no proof, never an exception', () => {
    const nonce = newHubProofNonce();
    const signature = signHubProof(hubKey, HOST, nonce);
    for (const bad of [undefined, 42, '', 'x'.repeat(86), `${signature}=`, signature.slice(1)]) expect(verifyHubProof(key, HOST, nonce, bad)).toBe(false);
    for (const badKey of ['', 'ed25519:', key.replace('ed25519:', 'rsa:'), `${key}A`]) expect(verifyHubProof(badKey, HOST, nonce, signature)).toBe(false);
  });

  it('hub proof - the signed bytes are not an event\'s, roster\'s or policy\'s: those are CBOR arrays, and a proof signs text after its domain', () => {
    const nonce = newHubProofNonce();
    const message = Buffer.from(`parley-hub-proof/1\n${HOST}\n${nonce}`, 'utf8');
    expect(crypto.verify(null, message, crypto.createPublicKey(hubKey), Buffer.from(signHubProof(hubKey, HOST, nonce), 'base64url'))).toBe(true);
    // A CBOR array starts with major type 4 (0x80-0x9f); the proof starts with "p".
    expect(message[0]! >> 5).not.toBe(4);
  });
});
