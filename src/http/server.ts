import type { AddressInfo } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { ParleyError } from '../errors/parley-error.js';
import type { Hub } from '../hub/index.js';
import { inBackground } from '../util/background.js';
import type { Logger } from '../util/logger.js';
import type { AdminCredential } from '../home/admin-token.js';
import { createHttpApp } from './app.js';
import { hostsFor } from './host-guard.js';
import { LazyMcpSessions } from '../mcp/lazy-sessions.js';

/**
 * The hub's HTTP listener. `close()` stops accepting connections, lets the
 * requests in flight finish, and drops idle keep-alive connections.
 */
/** How long in-flight requests may take to finish at shutdown. */
export const CLOSE_GRACE_MS = 5_000;

export interface HttpServer {
  url: string;
  port: number;
  /** The MCP sessions served at /mcp (diagnostics). */
  mcp: LazyMcpSessions;
  close(): Promise<void>;
}

export interface HttpServerOptions {
  hub: Hub;
  host: string;
  port: number;
  logger: Logger;
  admin?: AdminCredential;
  /** How long requests in flight may take to finish at close (default CLOSE_GRACE_MS). */
  closeGraceMs?: number;
}

export async function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const { hub, host, logger } = options;
  // The allowed Host values depend on the port actually bound (port 0 picks one).
  const allowedHosts = new Set<string>();
  const mcp = new LazyMcpSessions(hub, logger);
  const app = createHttpApp({ hub, logger, allowedHosts, mcp, ...(options.admin ? { admin: options.admin } : {}) });
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
  const connections = trackConnections(server);
  const shownHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${shownHost}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    mcp,
    close() {
      closing ??= new Promise<void>((resolve) => {
        // MCP sessions end first: their open notification streams are responses in flight.
        inBackground(mcp.closeAll(), logger, 'closing the MCP sessions');
        server.close(() => {
          clearTimeout(force);
          clearInterval(sweep);
          resolve();
        });
        // Connections with nothing in flight are dropped at once, the others as their last response ends.
        connections.dropIdle();
        const sweep = setInterval(() => connections.dropIdle(), 50);
        // Requests in flight get a grace period; then whatever is left is cut.
        const force = setTimeout(() => server.closeAllConnections(), options.closeGraceMs ?? CLOSE_GRACE_MS);
        force.unref();
      });
      return closing;
    },
  };
}

/**
 * Which sockets have a request in flight. Node's own closeIdleConnections()
 * counts a socket that has connected but not yet sent a request as busy (so
 * that its header timeout applies), and HTTP clients open such spare sockets
 * ahead of need; at shutdown they would hold the server open until the client
 * gives up on them. Here a socket is idle whenever no response on it is pending.
 */
function trackConnections(server: Server): { dropIdle(): void } {
  const inFlight = new Map<Socket, number>();
  server.on('connection', (socket: Socket) => {
    inFlight.set(socket, 0);
    socket.once('close', () => inFlight.delete(socket));
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    response.once('close', () => {
      const left = (inFlight.get(socket) ?? 1) - 1;
      if (inFlight.has(socket)) inFlight.set(socket, left);
    });
  });
  return {
    dropIdle() {
      for (const [socket, pending] of inFlight) if (pending === 0) socket.destroy();
    },
  };
}
