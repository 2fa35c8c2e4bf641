import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

/**
 * The request as the SDK's web-standard MCP transport reads it, made straight
 * from Node's IncomingMessage. The transport is handed the body already
 * parsed and reads only the method, the URL and headers (`get`, `entries`);
 * building a fetch Request and a Headers object for that cost more per call
 * than the rest of the transport. The headers are Node's own parsed object:
 * lower-case names, repeated values joined as a fetch Headers joins them.
 */
export class IncomingHeaders {
  constructor(private readonly raw: IncomingHttpHeaders) {}

  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }

  has(name: string): boolean {
    return this.raw[name.toLowerCase()] !== undefined;
  }

  /** In name order, as a fetch Headers iterates. */
  *entries(): IterableIterator<[string, string]> {
    for (const name of Object.keys(this.raw).sort()) {
      const value = this.get(name);
      if (value !== null) yield [name, value];
    }
  }

  keys(): IterableIterator<string> {
    return Array.from(this.entries(), ([name]) => name)[Symbol.iterator]();
  }

  values(): IterableIterator<string> {
    return Array.from(this.entries(), ([, value]) => value)[Symbol.iterator]();
  }

  forEach(callback: (value: string, name: string) => void): void {
    for (const [name, value] of this.entries()) callback(value, name);
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

/** What the transport reads of a request; `signal` aborts when the response closes (finished, or the client gone). */
export interface TransportRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHeaders;
  readonly signal: AbortSignal;
}

export function transportRequest(incoming: IncomingMessage, url: string, onClose: (listener: () => void) => void): TransportRequest {
  let controller: AbortController | undefined;
  let closed = false;
  onClose(() => {
    closed = true;
    controller?.abort();
  });
  return {
    method: incoming.method ?? 'GET',
    url,
    headers: new IncomingHeaders(incoming.headers),
    // Made only when something asks: the transport answering a POST with JSON never does.
    get signal(): AbortSignal {
      if (!controller) {
        controller = new AbortController();
        if (closed) controller.abort();
      }
      return controller.signal;
    },
  };
}
