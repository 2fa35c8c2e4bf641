import type { Config } from '../config/schema.js';
import { ParleyError } from '../errors/parley-error.js';
import { ReplayGuard, type ReplayVerdict } from '../trust/replay-guard.js';

/** Why an envelope from outside was dropped, counted for `parley status` and `doctor`. */
export const DROP_REASONS = ['malformed', 'badSignature', 'notInRoster', 'forbidden', 'expired', 'future', 'duplicate', 'full'] as const;
export type DropReason = (typeof DROP_REASONS)[number];

/**
 * The boundary every envelope signed elsewhere crosses before anything is
 * stored (an author's own signed event today; peer links next): it counts what
 * it drops, and holds the replay guard (TTL and seen ids, the replay
 * protection). Events the hub signs itself never pass here: TTL is a rule of
 * transit, not of storage.
 */
export class EnvelopeGate {
  readonly #guard: ReplayGuard;
  readonly #dropped = Object.fromEntries(DROP_REASONS.map((reason) => [reason, 0])) as Record<DropReason, number>;
  #accepted = 0;

  constructor(config: Config, now: () => number) {
    this.#guard = new ReplayGuard({ clockSkewSecs: config.trust.clockSkewSecs, maxIds: config.trust.replayMaxIds, now });
  }

  /** Counts a drop and gives the error to throw. */
  drop(reason: DropReason, error: ParleyError): ParleyError {
    this.#dropped[reason] += 1;
    return error;
  }

  /** Refuses an envelope past its TTL, from the future, already seen, or beyond the guard's memory; remembers it otherwise. */
  admit(id: string, ts: number, ttlSecs: number): void {
    const verdict = this.#guard.admit(id, ts, ttlSecs);
    if (verdict !== 'ok') throw this.#refuse(verdict, id, ttlSecs);
  }

  /**
   * Refuses an envelope past its TTL or from the future, remembering nothing:
   * for a linked hub's live events, which are taken once by their stored id.
   */
  inTime(id: string, ts: number, ttlSecs: number): void {
    const verdict = this.#guard.timeVerdict(ts, ttlSecs);
    if (verdict !== 'ok') throw this.#refuse(verdict, id, ttlSecs);
  }

  #refuse(verdict: Exclude<ReplayVerdict, 'ok'>, id: string, ttlSecs: number): ParleyError {
    const messages: Record<typeof verdict, string> = {
      expired: `Envelope ${id} expired: its ts + ttl_secs (${ttlSecs} s) is past, beyond the allowed clock skew. It was dropped; send a fresh one.`,
      future: `Envelope ${id} is dated in the future beyond the allowed clock skew (trust.clockSkewSecs). It was dropped; check the sender's clock.`,
      duplicate: `Envelope ${id} was already received (a replay). It was dropped.`,
      full: `Too many envelopes within their TTL to remember (trust.replayMaxIds); this one was dropped. Retry once older ones expire.`,
    };
    const error =
      verdict === 'full'
        ? new ParleyError('RATE_LIMITED', messages.full, { details: { reason: verdict } })
        : new ParleyError('ENVELOPE_REJECTED', messages[verdict], { field: verdict === 'duplicate' ? 'id' : 'ts', details: { reason: verdict } });
    return this.drop(verdict, error);
  }

  accepted(): void {
    this.#accepted += 1;
  }

  stats(): { accepted: number; dropped: Record<DropReason, number> } {
    return { accepted: this.#accepted, dropped: { ...this.#dropped } };
  }
}
