// Ed25519 signatures for the hub (all but the hub proof, see hub-proof.ts): libsodium (the sodium-native addon)
// when it loads, node:crypto otherwise. Both make the same signatures for the
// same key and bytes (Ed25519 is deterministic); libsodium makes and checks
// them in about half the CPU of node:crypto's OpenSSL, and signing is the
// largest cost of a signed post. Plain JavaScript (not compiled) so that the
// signing worker (signing-worker.mjs) runs the same code from the sources and
// from dist/. Keys stay node:crypto KeyObjects everywhere else; their raw
// bytes are taken once per key.
import { Buffer } from 'node:buffer';
import crypto from 'node:crypto';
import { createRequire } from 'node:module';

const SIGNATURE_BYTES = 64;

function loadSodium() {
  if (process.env.PARLEY_ED25519 === 'node') return undefined;
  try {
    return createRequire(import.meta.url)('sodium-native');
  } catch {
    // No build of the addon for this platform: node:crypto signs and checks the same signatures.
    return undefined;
  }
}

const sodium = loadSodium();

/** Which implementation signs here: 'libsodium' or 'node:crypto' (diagnostics). */
export const ed25519Backend = sodium ? 'libsodium' : 'node:crypto';

/** libsodium's 64-byte secret key (seed then public key) of each private KeyObject. */
const secretKeys = new WeakMap();
/** The 32 raw bytes of each public KeyObject. */
const publicKeys = new WeakMap();

function secretKeyOf(privateKey) {
  let secret = secretKeys.get(privateKey);
  if (!secret) {
    const jwk = privateKey.export({ format: 'jwk' });
    if (jwk.crv !== 'Ed25519' || !jwk.d || !jwk.x) throw new TypeError('an Ed25519 private key is needed to sign');
    secret = Buffer.concat([Buffer.from(jwk.d, 'base64url'), Buffer.from(jwk.x, 'base64url')]);
    secretKeys.set(privateKey, secret);
  }
  return secret;
}

function publicKeyOf(publicKey) {
  let raw = publicKeys.get(publicKey);
  if (!raw) {
    const jwk = publicKey.export({ format: 'jwk' });
    if (jwk.crv !== 'Ed25519' || !jwk.x) throw new TypeError('an Ed25519 public key is needed to check a signature');
    raw = Buffer.from(jwk.x, 'base64url');
    publicKeys.set(publicKey, raw);
  }
  return raw;
}

/** The 64-byte Ed25519 signature of `bytes` by `privateKey` (a KeyObject). */
export function ed25519Sign(bytes, privateKey) {
  if (!sodium) return crypto.sign(null, bytes, privateKey);
  const signature = Buffer.allocUnsafe(SIGNATURE_BYTES);
  sodium.crypto_sign_detached(signature, bytes, secretKeyOf(privateKey));
  return signature;
}

/** Whether `signature` is `publicKey`'s (a KeyObject) Ed25519 signature of `bytes`; never throws for a malformed signature. */
export function ed25519Verify(bytes, publicKey, signature) {
  if (signature.length !== SIGNATURE_BYTES) return false;
  if (!sodium) return crypto.verify(null, bytes, publicKey, signature);
  return sodium.crypto_sign_verify_detached(signature, bytes, publicKeyOf(publicKey));
}

/** Whether `signature` is the Ed25519 signature of `bytes` by the raw 32-byte public key `rawKey`; never throws for a malformed one. */
export function ed25519VerifyRaw(bytes, rawKey, signature) {
  if (signature.length !== SIGNATURE_BYTES || rawKey.length !== 32) return false;
  const view = (array) => Buffer.from(array.buffer, array.byteOffset, array.byteLength);
  if (sodium) return sodium.crypto_sign_verify_detached(view(signature), view(bytes), view(rawKey));
  const publicKey = crypto.createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(rawKey).toString('base64url') }, format: 'jwk' });
  return crypto.verify(null, bytes, publicKey, signature);
}
