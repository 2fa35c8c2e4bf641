import http from 'node:http';
import { ParleyError } from '../errors/parley-error.js';
import type { ErrorCode } from '../errors/codes.js';

/**
 * JSON requests to the hub over keep-alive connections (node:http: cheaper
 * per request than fetch). A hub error comes back as the ParleyError the hub
 * raised (same code, message, field and details), so callers handle remote
 * and in-process errors alike; a hub that does not answer is HUB_CLOSED.
 */
export class HttpJsonClient {
  readonly #agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  readonly #base: URL;

  constructor(
    readonly url: string,
    private readonly token: string,
  ) {
    this.#base = new URL(url);
  }

  request<T>(method: string, route: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise<T>((resolve, reject) => {
      const req = http.request(
        {
          host: this.#base.hostname,
          port: this.#base.port,
          method,
          path: `/api/v1${route}`,
          agent: this.#agent,
          headers: {
            authorization: `Bearer ${this.token}`,
            ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          },
          ...(signal ? { signal } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            let parsed: unknown;
            try {
              parsed = text ? JSON.parse(text) : {};
            } catch {
              parsed = { body: text };
            }
            if (status >= 200 && status < 300) {
              const isJson = (res.headers['content-type'] ?? '').includes('application/json');
              resolve((isJson ? parsed : { body: text, contentType: res.headers['content-type'] ?? 'text/plain' }) as T);
              return;
            }
            reject(toError(parsed, status));
          });
        },
      );
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (error.name === 'AbortError') reject(error);
        else reject(new ParleyError('HUB_CLOSED', `No hub answers at ${this.url} (${error.code ?? error.message}); start one with "parley serve".`));
      });
      req.end(payload);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}

function toError(parsed: unknown, status: number): ParleyError {
  const error = (parsed as { error?: { code?: ErrorCode; message?: string; field?: string; details?: Record<string, unknown> } }).error;
  return new ParleyError(error?.code ?? 'INTERNAL', error?.message ?? `The hub answered ${status}.`, {
    ...(error?.field ? { field: error.field } : {}),
    ...(error?.details ? { details: error.details } : {}),
  });
}
