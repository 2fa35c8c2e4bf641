import type { KeyObject } from 'node:crypto';

/** Which implementation signs here: 'libsodium' or 'node:crypto' (diagnostics). */
export declare const ed25519Backend: 'libsodium' | 'node:crypto';
/** The 64-byte Ed25519 signature of `bytes` by `privateKey`. */
export declare function ed25519Sign(bytes: Uint8Array, privateKey: KeyObject): Buffer;
/** Whether `signature` is `publicKey`'s Ed25519 signature of `bytes`; never throws for a malformed signature. */
export declare function ed25519Verify(bytes: Uint8Array, publicKey: KeyObject, signature: Uint8Array): boolean;
/** Whether `signature` is the Ed25519 signature of `bytes` by the raw 32-byte public key `rawKey`; never throws for a malformed one. */
export declare function ed25519VerifyRaw(bytes: Uint8Array, rawKey: Uint8Array, signature: Uint8Array): boolean;
