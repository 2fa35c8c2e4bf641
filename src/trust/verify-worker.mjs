// Ed25519 signature checks on a thread of their own, for the events a linked
// hub sends (see src/hub/signature-checks.ts): a check costs as much CPU as
// the rest of taking an event in, and here it runs on the second core while
// the hub's main thread stores the page before. Plain JavaScript (not
// compiled) so the same file runs from the sources and from dist/.
//
// In:  { batch, keys: Uint8Array (32 bytes each), sigs: Uint8Array (64 bytes each), bytes: Uint8Array, ends: [end...] }
//      (the signed bytes of every event, one after the other)
// Out: { batch, ok: Uint8Array } (1 for each signature that holds), or { batch, error }.
import { parentPort } from 'node:worker_threads';
import { ed25519VerifyRaw } from './ed25519.mjs';

const KEY_BYTES = 32;
const SIGNATURE_BYTES = 64;

parentPort.on('message', (message) => {
  const { batch, keys, sigs, bytes, ends } = message;
  try {
    const ok = new Uint8Array(ends.length);
    let start = 0;
    for (let i = 0; i < ends.length; i++) {
      const key = keys.subarray(i * KEY_BYTES, (i + 1) * KEY_BYTES);
      const sig = sigs.subarray(i * SIGNATURE_BYTES, (i + 1) * SIGNATURE_BYTES);
      ok[i] = ed25519VerifyRaw(bytes.subarray(start, ends[i]), key, sig) ? 1 : 0;
      start = ends[i];
    }
    parentPort.postMessage({ batch, ok }, [ok.buffer]);
  } catch (error) {
    parentPort.postMessage({ batch, error: error instanceof Error ? error.message : String(error) });
  }
});
