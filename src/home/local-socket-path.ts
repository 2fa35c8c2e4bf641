import fs from 'node:fs';
import path from 'node:path';
import { LOCAL_SOCKET_FILENAME } from '../config/defaults.js';

/**
 * Where the hub of a home listens for local clients: a Unix socket in the
 * home. The home is its user's alone (0700, see private-home.ts), so whoever
 * can reach the socket is that user: a client sends its token there without
 * the hub proof that a TCP address needs.
 */
export function localSocketPath(home: string): string {
  return path.join(home, LOCAL_SOCKET_FILENAME);
}

/**
 * The longest socket path the operating system takes (sun_path is 108 bytes
 * on Linux, 104 on macOS, with its closing NUL): a home nested deeper than
 * that gets no socket, and its clients use REST.
 */
export const MAX_SOCKET_PATH_BYTES = 103;

/** Whether the socket of this home fits the operating system's limit on socket paths. */
export function socketPathFits(file: string): boolean {
  return Buffer.byteLength(file) <= MAX_SOCKET_PATH_BYTES;
}

/**
 * Removes a socket file left by a hub that is gone (a crash leaves one). Only
 * the holder of the home's lock calls this, so no live hub listens there.
 * Something else under that name is left alone: false says so.
 */
export function removeStaleSocket(file: string): boolean {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
  if (!stat.isSocket()) return false;
  fs.unlinkSync(file);
  return true;
}
