/**
 * Who a key is: its node id (a hash of the Ed25519 public key) and the text
 * form a key is written in wherever people and documents see it
 * (`ed25519:<base64url, no padding>`, the roster's form). Signed bytes never
 * carry either: they carry the raw 32-byte key.
 */

import crypto, { type KeyObject } from 'node:crypto';
import { ParleyError } from '../errors/parley-error.js';

export const ED25519_KEY_BYTES = 32;
export const ED25519_SIGNATURE_BYTES = 64;
export const PUBLIC_KEY_PREFIX = 'ed25519:';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
/** The DER header Node puts before a raw Ed25519 public key (SPKI) and a raw seed (PKCS8). */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
/** 32 bytes in base64url without padding are always 43 characters. */
const KEY_TEXT = /^ed25519:[A-Za-z0-9_-]{43}$/;

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

/** Ids of the keys seen lately: every event a linked hub sends names its author by key, and a hash is dear. */
const idsOfKeys = new Map<string, string>();
const MAX_CACHED_IDS = 4096;

/** `p_` and the first 26 base32 characters (130 bits) of sha256(raw public key). */
export function participantIdOf(rawPublicKey: Uint8Array): string {
  const key = Buffer.from(rawPublicKey.buffer, rawPublicKey.byteOffset, rawPublicKey.byteLength).toString('latin1');
  let id = idsOfKeys.get(key);
  if (id === undefined) {
    id = `p_${base32(crypto.createHash('sha256').update(rawPublicKey).digest()).slice(0, 26)}`;
    if (idsOfKeys.size >= MAX_CACHED_IDS) idsOfKeys.clear();
    idsOfKeys.set(key, id);
  }
  return id;
}

/** A hub's id: `h_` and the same hash of its public key as a participant's (a hub and a participant never share a key). */
export function hubIdOf(rawPublicKey: Uint8Array): string {
  return `h_${participantIdOf(rawPublicKey).slice(2)}`;
}

/** The id as shown beside a handle: `p_` and its first 8 characters (`@coder-1 · p_abcdefgh`). */
export function shortIdOf(id: string): string {
  return id.startsWith('p_') ? id.slice(0, 10) : id.slice(0, 8);
}

function assertRawKey(raw: Uint8Array, field: string): void {
  if (!(raw instanceof Uint8Array) || raw.length !== ED25519_KEY_BYTES) {
    throw new ParleyError('INVALID_INPUT', `Invalid ${field}: an Ed25519 public key is ${ED25519_KEY_BYTES} raw bytes.`, { field });
  }
}

/** `ed25519:` and the raw key in base64url without padding. */
export function formatPublicKey(raw: Uint8Array, field = 'pubkey'): string {
  assertRawKey(raw, field);
  return PUBLIC_KEY_PREFIX + Buffer.from(raw.buffer, raw.byteOffset, raw.length).toString('base64url');
}

/** The raw 32 bytes of an `ed25519:…` key, refusing anything else with the field named. */
export function parsePublicKey(text: unknown, field = 'pubkey'): Buffer {
  if (typeof text !== 'string' || !KEY_TEXT.test(text)) {
    throw new ParleyError(
      'INVALID_INPUT',
      `Invalid ${field}: a public key is written "ed25519:" followed by 43 base64url characters (32 bytes, no padding), as "parley whoami --key" prints it.`,
      { field },
    );
  }
  const raw = Buffer.from(text.slice(PUBLIC_KEY_PREFIX.length), 'base64url');
  // Base64url has 2 spare bits in the last character: only the form formatPublicKey writes is accepted, so a key has one spelling.
  if (raw.length !== ED25519_KEY_BYTES || formatPublicKey(raw) !== text) {
    throw new ParleyError('INVALID_INPUT', `Invalid ${field}: not the canonical spelling of a 32-byte key; copy it again from "parley whoami --key".`, {
      field,
    });
  }
  return raw;
}

/** The raw 32 bytes of an Ed25519 public (or private: its public half) KeyObject. */
export function rawPublicKeyOf(key: KeyObject): Buffer {
  const publicKey = key.type === 'private' ? crypto.createPublicKey(key) : key;
  if (publicKey.asymmetricKeyType !== 'ed25519') {
    throw new ParleyError('INVALID_INPUT', `Invalid key: expected an Ed25519 key, got ${String(publicKey.asymmetricKeyType)}.`, { field: 'key' });
  }
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  return Buffer.from(spki.subarray(spki.length - ED25519_KEY_BYTES));
}

/** A public KeyObject from the raw 32 bytes. Creating one costs far more than a verify: callers keep it (see cachedPublicKey). */
export function publicKeyFromRaw(raw: Uint8Array, field = 'pubkey'): KeyObject {
  assertRawKey(raw, field);
  return crypto.createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
}

/** The 32-byte seed of an Ed25519 private KeyObject: the inverse of privateKeyFromSeed. */
export function seedOf(privateKey: KeyObject): Buffer {
  const der = privateKey.type === 'private' ? privateKey.export({ format: 'der', type: 'pkcs8' }) : undefined;
  if (der?.length !== PKCS8_PREFIX.length + ED25519_KEY_BYTES || !der.subarray(0, PKCS8_PREFIX.length).equals(PKCS8_PREFIX)) {
    throw new ParleyError('INVALID_INPUT', 'Invalid key: expected an Ed25519 private key.', { field: 'key' });
  }
  return Buffer.from(der.subarray(PKCS8_PREFIX.length));
}

/** A private KeyObject from a 32-byte seed: Ed25519 is deterministic, so fixed seeds give fixed test keys and signatures. */
export function privateKeyFromSeed(seed: Uint8Array): KeyObject {
  if (!(seed instanceof Uint8Array) || seed.length !== ED25519_KEY_BYTES) {
    throw new ParleyError('INVALID_INPUT', `Invalid seed: an Ed25519 seed is ${ED25519_KEY_BYTES} bytes.`, { field: 'seed' });
  }
  return crypto.createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

const PUBLIC_KEY_CACHE_MAX = 1024;
const publicKeyCache = new Map<string, KeyObject>();

/**
 * The KeyObject of a raw key, kept in a small bounded cache: verifiers see the
 * same few authors over and over, and building a KeyObject costs ~10 verifies.
 */
export function cachedPublicKey(raw: Uint8Array, field = 'pubkey'): KeyObject {
  assertRawKey(raw, field);
  const cacheKey = Buffer.from(raw.buffer, raw.byteOffset, raw.length).toString('latin1');
  let key = publicKeyCache.get(cacheKey);
  if (key === undefined) {
    key = publicKeyFromRaw(raw, field);
    if (publicKeyCache.size >= PUBLIC_KEY_CACHE_MAX) publicKeyCache.delete(publicKeyCache.keys().next().value as string);
    publicKeyCache.set(cacheKey, key);
  }
  return key;
}
