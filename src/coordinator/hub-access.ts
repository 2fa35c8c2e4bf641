/**
 * How the coordinator reaches the hub: in process (inside `parley serve`) or
 * over the REST API (`parley coordinate`). The coordinator itself is written
 * against this and ParticipantApi only, so both ways in share one implementation.
 */

import type { ParticipantApi } from '../hub/index.js';
import type { ThreadDetail } from '../schema/views.js';

export interface CoordinatedApi extends ParticipantApi {
  /** A thread's steering state and members: paused, done, ttl, invited_auto, who is hard-muted or invited. */
  threadDetail(thread: string): Promise<ThreadDetail>;
}

/** A token minted for one adapter run (its PARLEY_TOKEN), and its revocation. */
export interface RunToken {
  token: string;
  /** Revokes it: called as the run ends, however it ends, so nothing the adapter left behind can still act. */
  revoke(): Promise<void>;
}

/** One participant in one session, as the coordinator acts for it. */
export interface CoordinatedParticipant {
  handle: string;
  session: string;
  api: CoordinatedApi;
  /** A token of this participant for one run, of the coordinator kind (every hub start revokes those left). */
  runToken(): Promise<RunToken>;
  /**
   * Holds the participant present (as a live connection would) so that its
   * `thinking` shows; the release resolves once the hub no longer counts it.
   */
  hold(): Promise<() => Promise<void>>;
}

export interface HubAccess {
  /** The hub's address, for the adapters (PARLEY_URL). */
  readonly url: string;
  /** The hub's home: one coordinator per home locks it. Never handed to adapters (it holds every token and key). */
  readonly home: string;
  /** Registers the participant if need be (idempotent) and joins it to the session. */
  join(handle: string, session: string, profile?: Record<string, unknown>): Promise<CoordinatedParticipant>;
  /**
   * Calls `wake` whenever something new may need an answer in the session, or
   * `wake(participantId)` when that participant's own session ended (what was
   * left to it may now be answered for); returns the stop.
   */
  watch(session: string, wake: (participant?: string) => void): () => void;
  /** Lets go of the hub, revoking every token it minted and still holds (no run token outlives the coordinator). */
  close(): Promise<void>;
}
