import type { PeerEnvelopeInput } from '../schema/inputs.js';
import type { SecretSearch } from '../redaction/redactor.js';
import type { HubContext } from './context.js';
import { PEER_ENTRIES } from './entries.js';
import { DecodedEnvelope } from './envelope-opening.js';
import type { Gate } from './gate.js';
import { takeEnvelope } from './ingest.js';
import type { IngestResult } from './answers.js';

/**
 * Where linked hubs hand in what they carry (src/peer, through PeerSync):
 * through the same gate and the same message rules as a participant's own
 * calls. No credential is needed: each envelope's signature says who it is
 * from, and that participant's standing is what the gate checks.
 */
export class PeerEntry {
  readonly #ctx: HubContext;
  readonly #gate: Gate;

  constructor(ctx: HubContext, gate: Gate) {
    this.#ctx = ctx;
    this.#gate = gate;
  }

  /**
   * An event another hub of the roster holds (history or fan-out): taken once
   * by id, whatever its age. With `scanned` (its texts' secret scan, made
   * beforehand) it is stored in the same turn, so events handed in one after
   * another are stored in that order.
   */
  syncEnvelope(input: PeerEnvelopeInput | DecodedEnvelope, scanned?: SecretSearch): Promise<IngestResult> {
    // Each kind under its own entry (the access it needs); the kind of one not yet decoded is checked once it is.
    const kind = input instanceof DecodedEnvelope ? input.fields.kind : 'message';
    const entry = kind === 'request' ? PEER_ENTRIES.syncRequest : kind === 'response' ? PEER_ENTRIES.syncResponse : kind === 'control' ? PEER_ENTRIES.syncControl : PEER_ENTRIES.syncEnvelope;
    return this.#gate.call(entry, 'signer', input, (admitted) => takeEnvelope(this.#ctx, admitted, scanned));
  }
}
