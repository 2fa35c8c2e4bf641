/**
 * The Ed25519 key a libp2p peer id stands for, read without loading libp2p
 * (the CLI and a hub that never links read peer ids too). An Ed25519 peer id
 * is the base58btc text of an identity multihash (0x00, length 36) of the
 * key's protobuf (type 1 = Ed25519, 32 bytes of data): "12D3KooW…".
 */

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const DIGITS = new Map([...ALPHABET].map((char, at) => [char, at]));
/** identity multihash, 36 bytes; protobuf field 1 (type) = 1 (Ed25519); field 2 (data), 32 bytes. */
const ED25519_PEER_ID_PREFIX = [0x00, 0x24, 0x08, 0x01, 0x12, 0x20];

/** The raw 32-byte key of an Ed25519 peer id, or undefined for any other text. */
export function keyOfPeerId(text: string): Uint8Array | undefined {
  if (text.length === 0 || text.length > 64) return undefined;
  // Base 58 to base 256, most significant byte first.
  const bytes: number[] = [];
  for (const char of text) {
    let carry = DIGITS.get(char);
    if (carry === undefined) return undefined;
    for (let i = 0; i < bytes.length; i++) {
      carry += bytes[i]! * 58;
      bytes[i] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  for (const char of text) {
    if (char !== '1') break;
    bytes.push(0);
  }
  bytes.reverse();
  if (bytes.length !== ED25519_PEER_ID_PREFIX.length + 32) return undefined;
  if (ED25519_PEER_ID_PREFIX.some((byte, at) => bytes[at] !== byte)) return undefined;
  return Uint8Array.from(bytes.slice(ED25519_PEER_ID_PREFIX.length));
}
