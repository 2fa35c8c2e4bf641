import type { ParticipantApi } from '../hub/participant-api.js';
import type { ThreadDetail } from '../schema/views.js';

/**
 * How the coordinator reaches the hub: in process (inside `parley serve`) or
 * over the REST API (`parley coordinate`). The coordinator itself is written
 * against this and ParticipantApi only, so both doors share one implementation.
 */
export interface SeatApi extends ParticipantApi {
  /** A thread's steering state and members: paused, done, ttl, invited_auto, who is hard-muted or invited. */
  threadDetail(thread: string): Promise<ThreadDetail>;
}

/** One participant in one session, as the coordinator acts for it. */
export interface CoordinatedSeat {
  handle: string;
  session: string;
  api: SeatApi;
  /** A bearer token of this participant, handed to its adapter (PARLEY_TOKEN). */
  token: string;
  /**
   * Holds the participant present (as a live connection would) so that its
   * `thinking` shows; the release resolves once the hub no longer counts it.
   */
  hold(): Promise<() => Promise<void>>;
}

export interface CoordinatorDoor {
  /** The hub's address, for the adapters (PARLEY_URL). */
  readonly url: string;
  /** The hub's home, for the adapters (PARLEY_HOME). */
  readonly home: string;
  /** Registers the participant if need be (idempotent) and seats it in the session. */
  seat(handle: string, session: string, profile?: Record<string, unknown>): Promise<CoordinatedSeat>;
  /**
   * Calls `wake` whenever something new may need an answer in the session, or
   * `wake(participantId)` when that participant's own session ended (what was
   * left to it may now be answered for); returns the stop.
   */
  watch(session: string, wake: (participant?: string) => void): () => void;
  /** Lets go of the hub, revoking every token `seat` minted (adapters keep none past the coordinator). */
  close(): Promise<void>;
}
