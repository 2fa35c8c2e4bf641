import { setTimeout as delay } from 'node:timers/promises';
import { HttpJsonClient } from '../client/http-json.js';
import { RestParticipant } from '../client/rest-participant.js';
import type { Participant } from '../schema/participant.js';
import type { Logger } from '../util/logger.js';
import type { CoordinatedParticipant, HubAccess, RunToken } from './hub-access.js';

/** How long a release waits to see the hub count the participant gone, and how often it looks. */
const RELEASE_SEEN_WITHIN_MS = 5_000;
const RELEASE_LOOK_EVERY_MS = 20;

/**
 * `parley coordinate` beside a running hub: it registers (joins) the
 * participants it acts for with the home's admin token, as `parley join`
 * does, and acts for each with the token that gives (kept in this process,
 * never handed to an adapter). Each adapter run gets a token of its own, of
 * the coordinator kind, revoked when the run ends. It has no window on the
 * hub's events, so it looks at the inboxes every `pollMs`.
 */
export class RestHubAccess implements HubAccess {
  /** The admin client, for the admin token it was made with: a hub writes a new one at each start. */
  #admin: { token: string; client: HttpJsonClient } | undefined;
  readonly #clients = new Set<RestParticipant>();
  /** The tokens it acts with: revoked when it closes. */
  readonly #joinTokens: string[] = [];
  /** The run tokens not yet revoked: those left when it closes go then. */
  readonly #outstanding = new Set<string>();

  constructor(
    readonly url: string,
    readonly home: string,
    /** The home's admin token as it is now (read again on each use, so a restarted hub's new one is taken). */
    private readonly adminToken: () => Promise<string>,
    private readonly pollMs: number,
    private readonly logger: Logger,
  ) {}

  async #adminClient(): Promise<HttpJsonClient> {
    const token = await this.adminToken();
    if (this.#admin?.token !== token) {
      this.#admin?.client.close();
      this.#admin = { token, client: new HttpJsonClient(this.url, token) };
    }
    return this.#admin.client;
  }

  async join(handle: string, session: string, profile?: Record<string, unknown>): Promise<CoordinatedParticipant> {
    const joined = await (await this.#adminClient()).request<{ participant: Participant; token: string }>('POST', '/participants', {
      handle,
      session,
      ...(profile === undefined ? {} : { profile }),
    });
    this.#joinTokens.push(joined.token);
    const api = new RestParticipant(this.url, joined.token);
    this.#clients.add(api);
    const me = joined.participant.id;
    const name = joined.participant.handle;
    return {
      handle: name,
      session,
      api,
      runToken: async (): Promise<RunToken> => {
        const { token } = await (await this.#adminClient()).request<{ token: string }>('POST', `/participants/${encodeURIComponent(name)}/tokens/run`, { session });
        this.#outstanding.add(token);
        return {
          token,
          revoke: async () => {
            if (this.#outstanding.delete(token)) await this.#revoke(token);
          },
        };
      },
      hold: async () => {
        const connection = await api.connect();
        return async () => {
          connection.close();
          // The hub sees the connection go a moment later; until it does, the participant would look live.
          const until = Date.now() + RELEASE_SEEN_WITHIN_MS;
          while (Date.now() < until) {
            const presence = (await api.who()).find((p) => p.participant === me);
            if (!presence || presence.connection === 'offline') return;
            await delay(RELEASE_LOOK_EVERY_MS);
          }
        };
      },
    };
  }

  watch(_session: string, wake: () => void): () => void {
    const timer = setInterval(wake, this.pollMs);
    return () => clearInterval(timer);
  }

  async close(): Promise<void> {
    for (const client of this.#clients) {
      await client.settle();
      client.close();
    }
    const left = [...this.#joinTokens.splice(0), ...this.#outstanding];
    this.#outstanding.clear();
    for (const token of left) {
      await this.#revoke(token).catch((error: unknown) => this.logger.warn('coordinator token not revoked at close', { error: String(error) }));
    }
    this.#admin?.client.close();
  }

  async #revoke(token: string): Promise<void> {
    await (await this.#adminClient()).request('POST', '/participants/tokens/revoke', { token });
  }
}
