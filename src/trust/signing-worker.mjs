// Ed25519 signing on a thread of its own, so that the signature of each event
// (tens of microseconds of CPU) is made on the second core instead of the
// posting path (see src/hub/signature-pipeline.ts). Plain JavaScript (not
// compiled) so the same file runs from the sources and from dist/.
//
// In:  { batch, keys: [[authorId, KeyObject]...], authors: [authorId...], bytes: Uint8Array, ends: [end...] }
//      (the signing bytes of every event of the batch, one after the other; keys only for authors not sent before)
// Out: { batch, sigs: Uint8Array } (64 bytes per event, in order), or { batch, error } when a batch cannot be signed.
import { parentPort } from 'node:worker_threads';
import { ed25519Sign } from './ed25519.mjs';

const SIGNATURE_BYTES = 64;
const keys = new Map();

parentPort.on('message', (message) => {
  const { batch, authors, bytes, ends } = message;
  try {
    for (const [author, key] of message.keys) keys.set(author, key);
    const sigs = new Uint8Array(authors.length * SIGNATURE_BYTES);
    let start = 0;
    for (let i = 0; i < authors.length; i++) {
      const key = keys.get(authors[i]);
      if (!key) throw new Error(`no key for author ${authors[i]}`);
      sigs.set(ed25519Sign(bytes.subarray(start, ends[i]), key), i * SIGNATURE_BYTES);
      start = ends[i];
    }
    parentPort.postMessage({ batch, sigs }, [sigs.buffer]);
  } catch (error) {
    parentPort.postMessage({ batch, error: error instanceof Error ? error.message : String(error) });
  }
});
