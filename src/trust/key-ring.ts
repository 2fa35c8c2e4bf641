import crypto, { type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import { participantIdOf, rawPublicKeyOf } from './node-id.js';
import { ensureKeyFile, generatePrivateKey, hubKeyPathOf, participantKeyPathOf, readKeyFile, writeKeyFile } from './key-files.js';

/** A key pair as signing and display need it: the private key object, the public key object and its raw bytes. */
export interface KeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** The 32 raw bytes of the public key (what events and rosters carry). */
  raw: Buffer;
}

/**
 * The keys a hub holds: its own and those of the participants registered at
 * it (custodial: the hub signs on their behalf). Keys are read from their
 * files once and kept as key objects, because parsing a key costs ten times
 * a signature.
 */
export class KeyRing {
  readonly #home: string;
  readonly #participants = new Map<string, KeyPair>();
  #hub: KeyPair | undefined;

  constructor(home: string) {
    this.#home = home;
  }

  /** The hub's own key, made on first use. */
  hub(): KeyPair {
    this.#hub ??= pairOf(ensureKeyFile(hubKeyPathOf(this.#home)).privateKey);
    return this.#hub;
  }

  /** A registered participant's key, from its file. */
  participant(id: string): KeyPair {
    let pair = this.#participants.get(id);
    if (!pair) {
      pair = pairOf(readKeyFile(participantKeyPathOf(this.#home, id)));
      this.#participants.set(id, pair);
    }
    return pair;
  }

  /** Whether this home holds the private key of participant `id`. */
  holds(id: string): boolean {
    return this.#participants.has(id) || fs.existsSync(participantKeyPathOf(this.#home, id));
  }

  /** Makes a key for a new participant and keeps it in its file; the id is the hash of its public key. */
  createParticipant(): KeyPair & { id: string } {
    const pair = pairOf(generatePrivateKey());
    const id = participantIdOf(pair.raw);
    writeKeyFile(participantKeyPathOf(this.#home, id), pair.privateKey);
    this.#participants.set(id, pair);
    return { id, ...pair };
  }
}

export function pairOf(privateKey: KeyObject): KeyPair {
  const publicKey = crypto.createPublicKey(privateKey);
  return { privateKey, publicKey, raw: rawPublicKeyOf(publicKey) };
}
