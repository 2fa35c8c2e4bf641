import { ParleyError, parleyErrorFromBody } from '../errors/parley-error.js';
import type { JsonTransport } from './json-transport.js';

/**
 * Requests to the hub for a one-shot command (`parley say`, `parley join`):
 * over node:http rather than a pool of kept connections or fetch. A command
 * that makes a single request would pay more for loading fetch's client
 * (undici) than for the request itself.
 */
export class OneShotJson implements JsonTransport {
  constructor(
    readonly url: string,
    private readonly token: string,
  ) {}

  async request<T>(method: string, route: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    let response: { status: number; contentType: string; text: string };
    try {
      const headers = {
        authorization: `Bearer ${this.token}`,
        ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }),
      };
      response = await send(new URL(`${this.url}/api/v1${route}`), method, headers, payload, signal);
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new ParleyError('HUB_CLOSED', `No hub answers at ${this.url}; start one with "parley serve" (or give its address with --url or PARLEY_URL).`);
    }
    const ok = response.status >= 200 && response.status < 300;
    // Exports and other documents come back as text.
    if (ok && !response.contentType.includes('application/json')) return { body: response.text } as T;
    let answer: unknown = {};
    try {
      answer = JSON.parse(response.text) as unknown;
    } catch {
      // Not the hub's JSON: the status says enough.
    }
    if (!ok) throw parleyErrorFromBody(answer, response.status);
    return answer as T;
  }
}

async function send(
  target: URL,
  method: string,
  headers: Record<string, string>,
  payload: string | undefined,
  signal: AbortSignal | undefined,
): Promise<{ status: number; contentType: string; text: string }> {
  const { request } = target.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(target, { method, headers, ...(signal ? { signal } : {}) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}
