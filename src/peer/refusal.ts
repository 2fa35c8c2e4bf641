/**
 * What a hub answers instead of its hello when it refuses a link: the reason
 * and a sentence, so the refused side can show why in `parley peer list`.
 * Unsigned: it says why the link ends, and nothing is taken from it.
 */

import { z } from 'zod';
import { DropReasonSchema, type DropReason } from '../schema/peer-link.js';
import { canonicalEncode, decodeStrict } from '../trust/cbor.js';

const REFUSAL_DOMAIN = 'parley/refused/v1';
const RefusalTuple = z.tuple([z.literal(REFUSAL_DOMAIN), DropReasonSchema, z.string().max(1000)]);

export function encodeRefusal(reason: DropReason, message: string): Uint8Array {
  return canonicalEncode([REFUSAL_DOMAIN, reason, message.slice(0, 1000)], 'refusal');
}

/** The refusal in `frame`, or undefined when it is something else (a hello). */
export function decodeRefusal(frame: Uint8Array): { reason: DropReason; message: string } | undefined {
  try {
    const [, reason, message] = RefusalTuple.parse(decodeStrict(frame, { maxBytes: 4096, what: 'refusal' }));
    return { reason, message };
  } catch {
    return undefined;
  }
}
