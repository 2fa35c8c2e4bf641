import type { HttpJsonClient } from './http-json.js';

const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 10_000;

/**
 * What keeps a participant served from another process (`parley mcp` over
 * stdio) present on the hub: one open `GET /connection` for as long as its MCP
 * session lasts. The hub sees this process go when the response closes, which
 * the operating system does even if the process is killed. Should the hub go
 * away and come back, the connection is opened again.
 */
export class HubConnection {
  readonly #controller = new AbortController();

  private constructor(private readonly http: HttpJsonClient) {}

  /** Resolves once the hub holds the participant present; rejects with the hub's refusal. */
  static async open(http: HttpJsonClient): Promise<HubConnection> {
    const connection = new HubConnection(http);
    const { ended } = await http.open('/connection', connection.#controller.signal);
    connection.#reopenAfter(ended).catch(() => {
      // It never fails: each attempt's failure is caught and retried after a wait, until the connection is closed.
    });
    return connection;
  }

  close(): void {
    this.#controller.abort();
  }

  async #reopenAfter(ended: Promise<void>): Promise<void> {
    const { signal } = this.#controller;
    let delay = RETRY_FIRST_MS;
    await ended;
    while (!signal.aborted) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, delay);
        signal.addEventListener('abort', done, { once: true });
      });
      if (signal.aborted) return;
      try {
        await (await this.http.open('/connection', signal)).ended;
        delay = RETRY_FIRST_MS;
      } catch {
        delay = Math.min(delay * 2, RETRY_MAX_MS);
      }
    }
  }
}
