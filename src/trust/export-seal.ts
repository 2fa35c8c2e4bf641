import crypto from 'node:crypto';
import {
  EXPORT_HEADER_TYPE,
  EXPORT_TRAILER_TYPE,
  SIGNED_EXPORT_VERSION,
  type ExportEventLine,
  type ExportHeader,
  type ExportHeaderFields,
  type ExportTrailer,
} from '../schema/signed-export.js';
import { canonicalEncode } from './cbor.js';
import type { KeyPair } from './key-ring.js';
import { cachedPublicKey, formatPublicKey, parsePublicKey } from './node-id.js';
import { ed25519Sign, ed25519Verify } from './ed25519.mjs';

/**
 * The exporting hub's seal on a signed export (line format in
 * src/schema/signed-export.ts): a signed header and a signed trailer, and the
 * hash chain that binds every line between them to both. Frozen v1 signed
 * forms, Ed25519 over the deterministic CBOR (no pre-hash), by the hub's key:
 *   header:  ["parley/export-header/v1", hub key bytes(32), mode, thread id,
 *             thread name, thread kind, authors sorted by raw key bytes, each
 *             [key bytes(32), handle], exported_at]
 *   trailer: ["parley/export-trailer/v1", thread id, events, first_seq or null,
 *             last_seq or null, chain bytes(32)]
 * The chain is SHA-256 of the header line's UTF-8 text, then, for each later
 * line up to the trailer, SHA-256(chain || the line's UTF-8 text): the exact
 * text, without its line break. Changing, adding, dropping or moving any
 * line between header and trailer changes it.
 */
export const EXPORT_HEADER_DOMAIN = 'parley/export-header/v1';
export const EXPORT_TRAILER_DOMAIN = 'parley/export-trailer/v1';

/** The bytes the header's signature is over. */
export function headerSigningBytes(header: ExportHeaderFields): Uint8Array {
  const authors = header.authors
    .map((a) => ({ raw: parsePublicKey(a.key, 'authors.key'), handle: a.handle }))
    .sort((a, b) => Buffer.compare(a.raw, b.raw))
    .map((a) => [a.raw, a.handle]);
  return canonicalEncode(
    [EXPORT_HEADER_DOMAIN, parsePublicKey(header.hub, 'hub'), header.mode, header.thread.id, header.thread.name, header.thread.kind, authors, header.exported_at],
    'header',
  );
}

/** The bytes the trailer's signature is over. */
export function trailerSigningBytes(trailer: Omit<ExportTrailer, 'type' | 'sig'>): Uint8Array {
  return canonicalEncode(
    [EXPORT_TRAILER_DOMAIN, trailer.thread, trailer.events, trailer.first_seq, trailer.last_seq, Buffer.from(trailer.chain, 'base64url')],
    'trailer',
  );
}

/** Whether `sig` (base64url) is the hub key's signature of `bytes`. */
export function verifySeal(bytes: Uint8Array, hub: Uint8Array, sig: string): boolean {
  const signature = Buffer.from(sig, 'base64url');
  return signature.length === 64 && ed25519Verify(bytes, cachedPublicKey(hub, 'hub'), signature);
}

/** The running hash chain over an export's lines, from its header line on. */
export class ExportChain {
  #digest: Buffer;

  constructor(headerLine: string) {
    this.#digest = crypto.createHash('sha256').update(headerLine, 'utf8').digest();
  }

  add(line: string): void {
    this.#digest = crypto.createHash('sha256').update(this.#digest).update(line, 'utf8').digest();
  }

  /** The chain so far, in base64url (the trailer's `chain`). */
  get value(): string {
    return this.#digest.toString('base64url');
  }
}

/**
 * The hub's side: writes the signed header, every line after it (keeping the
 * chain, the event count and the first and last seq), then the signed
 * trailer. Each method returns one line's text, without its line break.
 */
export class ExportSealer {
  readonly #hub: KeyPair;
  readonly #header: string;
  readonly #thread: string;
  readonly #chain: ExportChain;
  #events = 0;
  #firstSeq: number | null = null;
  #lastSeq: number | null = null;

  constructor(hub: KeyPair, fields: Omit<ExportHeaderFields, 'type' | 'v' | 'hub'>) {
    this.#hub = hub;
    const unsigned: ExportHeaderFields = { type: EXPORT_HEADER_TYPE, v: SIGNED_EXPORT_VERSION, hub: formatPublicKey(hub.raw), ...fields };
    const header: ExportHeader = { ...unsigned, sig: this.#sign(headerSigningBytes(unsigned)) };
    this.#header = JSON.stringify(header);
    this.#thread = fields.thread.id;
    this.#chain = new ExportChain(this.#header);
  }

  header(): string {
    return this.#header;
  }

  /** A roster or event line, chained (and an event counted). */
  line(record: { type: 'roster'; scope: 'org' | 'local'; roster: unknown } | ExportEventLine): string {
    const text = JSON.stringify(record);
    this.#chain.add(text);
    if (record.type === 'event') {
      this.#events += 1;
      this.#firstSeq ??= record.seq;
      this.#lastSeq = record.seq;
    }
    return text;
  }

  trailer(): string {
    const fields = { thread: this.#thread, events: this.#events, first_seq: this.#firstSeq, last_seq: this.#lastSeq, chain: this.#chain.value };
    const trailer: ExportTrailer = { type: EXPORT_TRAILER_TYPE, ...fields, sig: this.#sign(trailerSigningBytes(fields)) };
    return JSON.stringify(trailer);
  }

  #sign(bytes: Uint8Array): string {
    return ed25519Sign(bytes, this.#hub.privateKey).toString('base64url');
  }
}
