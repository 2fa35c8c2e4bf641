import fs from 'node:fs';
import net from 'node:net';
import { LOCAL_SOCKET_CLOSE_GRACE_MS } from '../config/defaults.js';
import type { Hub } from '../hub/index.js';
import { PRIVATE_FILE_MODE } from '../home/private-home.js';
import { localSocketPath, removeStaleSocket, socketPathFits } from '../home/local-socket-path.js';
import type { Logger } from '../util/logger.js';
import { VERSION } from '../version.js';
import { SocketSession } from './socket-session.js';

/**
 * The hub's Unix socket in its home, beside the HTTP port: what `parley mcp`
 * (stdio) on the same machine calls through, one persistent connection with
 * newline-delimited JSON frames (src/client/socket-frames.ts) instead of an
 * HTTP request per tool call. It is one more way into the same gate: every
 * call is a participant's Actor call, authenticated by its token per call.
 */
export interface LocalSocket {
  path: string;
  /** Stops taking connections and removes the socket file; resolves once the calls in flight are answered and every connection closed. */
  close(): Promise<void>;
}

export interface LocalSocketOptions {
  hub: Hub;
  home: string;
  /** The hub's HTTP address, which hello reports: a client checks it is the hub it means. */
  url: string;
  logger: Logger;
  /** How long calls in flight may take to finish at close (default LOCAL_SOCKET_CLOSE_GRACE_MS). */
  closeGraceMs?: number;
}

/**
 * Listens on `<home>/hub.sock` (0600); undefined, said in the log, when the
 * home's path is too long for a socket or something that is not a socket
 * holds the name: local clients then use REST. A socket file left by a hub
 * that crashed is removed first (the caller holds the home's lock).
 */
export async function startLocalSocket(options: LocalSocketOptions): Promise<LocalSocket | undefined> {
  const { hub, logger } = options;
  const file = localSocketPath(options.home);
  if (!socketPathFits(file)) {
    logger.warn('no local socket: the home\'s path is too long for one; local clients use REST', { path: file });
    return undefined;
  }
  if (!removeStaleSocket(file)) {
    logger.warn('no local socket: something that is not a socket has its name; local clients use REST', { path: file });
    return undefined;
  }
  const sessions = new Set<SocketSession>();
  const settings = { hub, logger, hello: { hub: 'parley' as const, url: options.url, version: VERSION }, maxFrameChars: hub.config.server.maxBodyBytes };
  const server = net.createServer((socket) => {
    const session = new SocketSession(socket, settings);
    sessions.add(session);
    socket.once('close', () => sessions.delete(session));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(file, () => {
      server.off('error', reject);
      resolve();
    });
  });
  fs.chmodSync(file, PRIVATE_FILE_MODE);
  server.on('error', (error) => logger.warn('local socket error', { error }));
  let closing: Promise<void> | undefined;
  return {
    path: file,
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        // Connections end as their last call is answered; past the grace period whatever is left is cut.
        const force = setTimeout(() => {
          for (const session of sessions) session.destroy();
        }, options.closeGraceMs ?? LOCAL_SOCKET_CLOSE_GRACE_MS);
        force.unref();
        await Promise.all([...sessions].map((session) => session.drain()));
        clearTimeout(force);
        await stopped;
      })();
      return closing;
    },
  };
}
