import { Pool, errors } from 'undici';
import { ParleyError, parleyErrorFromBody } from '../errors/parley-error.js';
import type { JsonTransport } from './json-transport.js';
import { InFlight } from '../util/in-flight.js';

/**
 * JSON requests to the hub over a pool of keep-alive connections (undici's
 * Pool: about a third cheaper per request than node:http here, which matters
 * on every tool call `parley mcp` forwards). A hub error comes back as the
 * ParleyError the hub raised (same code, message, field, details and hint), so
 * callers handle remote and in-process errors alike; a hub that does not
 * answer is HUB_CLOSED.
 */
export class HttpJsonClient implements JsonTransport {
  readonly #pool: Pool;
  /** Requests not yet answered, so a client can let them finish before it goes (see settle). */
  readonly #inflight = new InFlight();

  constructor(
    readonly url: string,
    private readonly token: string,
  ) {
    this.#pool = new Pool(new URL(url).origin, { connections: 64 });
  }

  request<T>(method: string, route: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    return this.#inflight.track(this.#request<T>(method, route, body, signal));
  }

  /** Resolves once every request sent so far has been answered (or failed). */
  settle(): Promise<void> {
    return this.#inflight.settled();
  }

  async #request<T>(method: string, route: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    let response: Awaited<ReturnType<Pool['request']>>;
    try {
      response = await this.#pool.request({
        method: method as 'GET',
        path: `/api/v1${route}`,
        headers: { authorization: `Bearer ${this.token}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(payload === undefined ? {} : { body: payload }),
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      if (error instanceof errors.RequestAbortedError || (error as Error).name === 'AbortError') throw error;
      throw new ParleyError('HUB_CLOSED', `No hub answers at ${this.url} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); start one with "parley serve".`);
    }
    const text = await response.body.text();
    const contentType = String(response.headers['content-type'] ?? '');
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = { body: text };
    }
    if (response.statusCode >= 200 && response.statusCode < 300) {
      return (contentType.includes('application/json') ? parsed : { body: text, contentType: contentType || 'text/plain' }) as T;
    }
    throw parleyErrorFromBody(parsed, response.statusCode);
  }

  /**
   * Opens a response the hub keeps open (a stream), reading and dropping what
   * it sends. Resolves once the hub has answered; `ended` resolves when the
   * response ends, fails or is aborted with `signal`.
   */
  async open(route: string, signal: AbortSignal): Promise<{ ended: Promise<void> }> {
    let response: Awaited<ReturnType<Pool['request']>>;
    try {
      response = await this.#pool.request({ method: 'GET', path: `/api/v1${route}`, headers: { authorization: `Bearer ${this.token}` }, signal });
    } catch (error) {
      if (error instanceof errors.RequestAbortedError || (error as Error).name === 'AbortError') throw error;
      throw new ParleyError('HUB_CLOSED', `No hub answers at ${this.url} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); start one with "parley serve".`);
    }
    if (response.statusCode !== 200) {
      const text = await response.body.text();
      let parsed: unknown = {};
      try {
        parsed = JSON.parse(text);
      } catch {
        // not the hub's JSON error: the status says enough
      }
      throw parleyErrorFromBody(parsed, response.statusCode);
    }
    const body = response.body;
    const ended = new Promise<void>((resolve) => {
      body.once('end', () => resolve());
      body.once('error', () => resolve());
      body.once('close', () => resolve());
    });
    body.resume();
    return { ended };
  }

  close(): void {
    this.#pool.close().catch(() => {
      // close() rejects only on a destroyed pool, and this one is never destroyed.
    });
  }
}
