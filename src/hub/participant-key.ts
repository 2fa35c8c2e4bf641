// A participant's public key in the two forms the hub uses: the raw 32 bytes
// (signed fields, roster lookups) and the `ed25519:…` text (rosters, policies,
// what people see). The record keeps it as base64; the bytes are decoded once
// per participant.

import { formatPublicKey } from '../trust/node-id.js';

const rawKeys = new WeakMap<{ publicKey: string }, Buffer>();

export function rawKeyOf(participant: { publicKey: string }): Buffer {
  let raw = rawKeys.get(participant);
  if (!raw) {
    raw = Buffer.from(participant.publicKey, 'base64');
    rawKeys.set(participant, raw);
  }
  return raw;
}

export function keyTextOf(participant: { publicKey: string }): string {
  return formatPublicKey(rawKeyOf(participant));
}
