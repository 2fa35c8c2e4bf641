import crypto, { type KeyObject } from 'node:crypto';
// node:crypto, not ./ed25519.mjs: one signature per proof, and `parley hook` (which checks it on every agent tool call) would pay more to load the addon than it saves.

/**
 * How a local client knows that the process at an address is its home's hub
 * before it sends that process a credential: it sends a fresh random nonce to
 * POST /hub-proof, and the hub answers with its public key and an Ed25519
 * signature over a domain string, the Host it was asked at and the nonce.
 * The client checks the key against the one the hub recorded in the home's
 * lock file (inside the owner-only home) and the signature against that key.
 *
 * Node's built-ins only: `parley hook` proves its hub on every tool call.
 * The signed bytes are plain text starting with the domain string, so they
 * can never be an event's, a roster's or a policy's signed bytes (canonical
 * CBOR arrays): a proof signature is good for nothing else.
 */
export const HUB_PROOF_PATH = '/hub-proof';
export const HUB_PROOF_NONCE_BYTES = 32;
const HUB_PROOF_DOMAIN = 'parley-hub-proof/1';
/** 32 bytes in base64url without padding. */
export const HUB_PROOF_NONCE = /^[A-Za-z0-9_-]{43}$/;
/** A public key as the lock file and the proof carry it: `ed25519:` and 32 bytes in base64url (see node-id.ts). */
const KEY_TEXT = /^ed25519:([A-Za-z0-9_-]{43})$/;
const SIGNATURE_TEXT = /^[A-Za-z0-9_-]{86}$/;

/** What the hub answers to POST /hub-proof. */
export interface HubProofAnswer {
  key: string;
  signature: string;
}

export function newHubProofNonce(): string {
  return crypto.randomBytes(HUB_PROOF_NONCE_BYTES).toString('base64url');
}

function signedBytes(host: string, nonce: string): Buffer {
  return Buffer.from(`${HUB_PROOF_DOMAIN}\n${host.toLowerCase()}\n${nonce}`, 'utf8');
}

/** The hub's signature (base64url) over the proof for a client that asked at `host` with `nonce`. */
export function signHubProof(privateKey: KeyObject, host: string, nonce: string): string {
  return crypto.sign(null, signedBytes(host, nonce), privateKey).toString('base64url');
}

/** Whether `signature` is `key`'s signature over the proof for `host` and `nonce`; false for anything malformed. */
export function verifyHubProof(key: string, host: string, nonce: string, signature: unknown): boolean {
  const x = KEY_TEXT.exec(key)?.[1];
  if (x === undefined || typeof signature !== 'string' || !SIGNATURE_TEXT.test(signature)) return false;
  try {
    const publicKey = crypto.createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    return crypto.verify(null, signedBytes(host, nonce), publicKey, Buffer.from(signature, 'base64url'));
  } catch {
    return false;
  }
}
