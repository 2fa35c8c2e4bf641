import { HttpJsonClient } from './http-json.js';
import { HubConnection } from './hub-connection.js';
import { ParticipantRoutes } from './participant-routes.js';

/**
 * A participant of a running hub, reached over its REST API with a bearer
 * token through a pool of kept connections: the same interface as the
 * in-process `Actor`, one request per call (see ParticipantRoutes).
 * `parley mcp` (stdio), the middleware and the agent loop act through this.
 */
export class RestParticipant extends ParticipantRoutes {
  readonly #pool: HttpJsonClient;

  constructor(url: string, token: string) {
    const pool = new HttpJsonClient(url, token);
    super(pool);
    this.#pool = pool;
  }

  close(): void {
    this.#pool.close();
  }

  /** Resolves once every call made so far has been answered. */
  settle(): Promise<void> {
    return this.#pool.settle();
  }

  /** Keeps this participant present on the hub until the connection is closed (see HubConnection). */
  connect(): Promise<HubConnection> {
    return HubConnection.open(this.#pool);
  }
}
