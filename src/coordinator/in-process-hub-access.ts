import type { Hub } from '../hub/index.js';
import type { CoordinatedParticipant, HubAccess, RunToken } from './hub-access.js';

/**
 * The coordinator inside `parley serve`: it acts through the hub's own Actors
 * and is woken by each committed event of the sessions it serves, and by each
 * participant whose presence turns offline. It needs no token of its own;
 * each adapter run gets one, revoked when the run ends.
 */
export class InProcessHubAccess implements HubAccess {
  /** The run tokens not yet revoked: those left when it closes go then. */
  readonly #outstanding = new Set<string>();

  constructor(
    private readonly hub: Hub,
    readonly url: string,
  ) {}

  get home(): string {
    return this.hub.home;
  }

  async join(handle: string, session: string, profile?: Record<string, unknown>): Promise<CoordinatedParticipant> {
    const actor = await this.hub.join({ handle, session, ...(profile === undefined ? {} : { profile }) });
    const name = actor.participant.handle;
    return {
      handle: name,
      session,
      api: actor,
      runToken: async (): Promise<RunToken> => {
        const token = await this.hub.issueToken(name, session, 'coordinator');
        this.#outstanding.add(token);
        return { token, revoke: () => this.#revoke(token) };
      },
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
    // The hub belongs to `parley serve`, which closes it; the run tokens still out go now.
    for (const token of [...this.#outstanding]) await this.#revoke(token);
  }

  async #revoke(token: string): Promise<void> {
    if (!this.#outstanding.delete(token)) return;
    await this.hub.revokeToken(token);
  }
}
