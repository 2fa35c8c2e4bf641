import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import { ParleyError } from '../errors/parley-error.js';
import type { Hub } from '../hub/hub.js';
import type { Logger } from '../util/logger.js';
import type { AdminCredential } from './admin-token.js';
import { createHttpApp } from './app.js';
import { hostsFor } from './host-guard.js';

/**
 * The hub's HTTP listener. `close()` stops accepting connections, lets the
 * requests in flight finish, and drops idle keep-alive connections.
 */
/** How long in-flight requests may take to finish at shutdown. */
export const CLOSE_GRACE_MS = 5_000;

export interface HttpServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startHttpServer(options: { hub: Hub; host: string; port: number; logger: Logger; admin?: AdminCredential }): Promise<HttpServer> {
  const { hub, host, logger } = options;
  // The allowed Host values depend on the port actually bound (port 0 picks one).
  const allowedHosts = new Set<string>();
  const app = createHttpApp({ hub, logger, allowedHosts, ...(options.admin ? { admin: options.admin } : {}) });
  const server = createAdaptorServer({ fetch: app.fetch, hostname: host }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') {
        reject(new ParleyError('CONFLICT', `Port ${options.port} on ${host} is already in use; stop what holds it or pass --port with a free port.`, {
          field: 'port',
        }));
      } else if (error.code === 'EACCES') {
        reject(new ParleyError('FORBIDDEN', `Not allowed to listen on ${host}:${options.port}; pick a port above 1024.`, { field: 'port' }));
      } else reject(error);
    });
    server.listen(options.port, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  for (const name of hostsFor(host, port)) allowedHosts.add(name);
  const shownHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${shownHost}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => {
          clearTimeout(force);
          clearInterval(sweep);
          resolve();
        });
        // Keep-alive connections that go idle while closing are dropped as they do.
        server.closeIdleConnections();
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        // Requests in flight get a grace period; then whatever is left is cut.
        const force = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
        force.unref();
      });
      return closing;
    },
  };
}
