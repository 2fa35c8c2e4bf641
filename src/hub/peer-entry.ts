import type { EnvelopeInput } from '../schema/inputs.js';
import type { HubContext } from './context.js';
import { PEER_ENTRIES } from './entries.js';
import type { Gate } from './gate.js';
import { takeEnvelope } from './ingest.js';
import type { IngestResult } from './answers.js';

/**
 * Where linked hubs hand in what they carry (the peer links, next): through
 * the same gate and the same message rules as a participant's own calls. No
 * credential is needed: each envelope's signature says who it is from, and
 * that participant's standing is what the gate checks. Hub-internal until the
 * peer links bring it a transport.
 */
export class PeerEntry {
  readonly #ctx: HubContext;
  readonly #gate: Gate;

  constructor(ctx: HubContext, gate: Gate) {
    this.#ctx = ctx;
    this.#gate = gate;
  }

  /** An event another hub of the roster holds (history or fan-out): taken once by id, whatever its age. */
  syncEnvelope(input: EnvelopeInput): Promise<IngestResult> {
    return this.#gate.call(PEER_ENTRIES.syncEnvelope, 'signer', input, (admitted) => takeEnvelope(this.#ctx, admitted));
  }
}
