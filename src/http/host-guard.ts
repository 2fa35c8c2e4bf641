import type { Context, MiddlewareHandler } from 'hono';
import { ParleyError } from '../errors/parley-error.js';

/**
 * DNS-rebinding protection. A page on another origin can make a browser send
 * requests to 127.0.0.1 under a hostname it controls; refusing any Host that is
 * not one of ours, and any Origin that is not the hub's own, stops it from
 * reading or posting.
 */
export function hostGuard(allowedHosts: ReadonlySet<string>): MiddlewareHandler {
  return async (c, next) => {
    const host = requestHost(c);
    if (!allowedHosts.has(host)) {
      throw new ParleyError('FORBIDDEN', `Host "${host}" is not this hub; connect to it by its own address (for example http://127.0.0.1:<port>).`);
    }
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== 'null') {
      let originHost: string;
      try {
        originHost = new URL(origin).host.toLowerCase();
      } catch {
        throw new ParleyError('FORBIDDEN', `Origin "${origin}" is not a valid origin.`);
      }
      if (!allowedHosts.has(originHost)) {
        throw new ParleyError('FORBIDDEN', `Requests from origin "${origin}" are refused: only the hub's own pages may call it.`);
      }
    } else if (origin === 'null') {
      throw new ParleyError('FORBIDDEN', 'Requests from an opaque origin are refused.');
    }
    await next();
  };
}

/** The Host values a hub listening on host:port answers to. */
export function hostsFor(host: string, port: number): Set<string> {
  const names = new Set<string>([`${host}:${port}`]);
  if (host === '127.0.0.1' || host === 'localhost' || host === '::1' || host === '0.0.0.0' || host === '::') {
    for (const local of ['127.0.0.1', 'localhost', '[::1]']) names.add(`${local}:${port}`);
  }
  return names;
}

/** The Host a request was sent to, lower-case. The Node adapter builds the request URL from the Host header; in-process requests carry it in the URL. */
export function requestHost(c: Context): string {
  return (c.req.header('host') ?? new URL(c.req.url).host).toLowerCase();
}
