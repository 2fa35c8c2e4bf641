import type { Hub } from '../hub/hub.js';
import type { CoordinatedSeat, CoordinatorDoor } from './door.js';

/**
 * The coordinator inside `parley serve`: it acts through the hub's own Actors
 * and is woken by each committed event of the sessions it serves, and by each
 * participant whose presence turns offline.
 */
export class InProcessDoor implements CoordinatorDoor {
  /** The tokens this door minted (one per participant per start): revoked when it closes. */
  readonly #minted: string[] = [];

  constructor(
    private readonly hub: Hub,
    readonly url: string,
  ) {}

  get home(): string {
    return this.hub.home;
  }

  async seat(handle: string, session: string, profile?: Record<string, unknown>): Promise<CoordinatedSeat> {
    const actor = await this.hub.join({ handle, session, ...(profile === undefined ? {} : { profile }) });
    const token = await this.hub.issueToken(actor.participant.handle, session);
    this.#minted.push(token);
    return {
      handle: actor.participant.handle,
      session,
      api: actor,
      token,
      hold: async () => {
        const release = actor.holdPresence('mcp');
        // In process the hub sees the release at once.
        return async () => release();
      },
    };
  }

  watch(session: string, wake: (participant?: string) => void): () => void {
    const stopEvents = this.hub.onEvents(session, () => wake());
    // An agent left to its own live session is answered for once that session ends, with no further event needed.
    const stopOffline = this.hub.onOffline(session, (participant) => wake(participant));
    return () => {
      stopEvents();
      stopOffline();
    };
  }

  async close(): Promise<void> {
    // The hub belongs to `parley serve`, which closes it; the tokens handed to adapters go now.
    for (const token of this.#minted.splice(0)) await this.hub.revokeToken(token);
  }
}
