import fs from 'node:fs';
import path from 'node:path';
import { CREDENTIALS_FILENAME } from '../config/defaults.js';
import { PRIVATE_DIR_MODE } from '../home/private-home.js';
import { writeFileAtomically } from '../util/atomic-write.js';
import { HubAdmin, type Registration } from './hub-admin.js';

/**
 * Joining a participant to the hub running on a home, as `parley join`,
 * `parley mcp --as` and the middleware do: through the home's admin token,
 * with the token issued kept in `<home>/credentials.json` (0600) by session
 * and handle, where credentials.ts finds it.
 */
export async function registerParticipant(url: string, home: string, body: { handle: string; session?: string; profile?: Record<string, unknown> }): Promise<Registration> {
  const result = await HubAdmin.ofHome(url, home).register(body);
  saveToken(home, result.session.name, result.participant.handle, result.token);
  return result;
}

/** A new token for the participant (the older ones revoked), kept in the home. */
export async function rotateParticipantToken(url: string, home: string, handle: string, session: string | undefined): Promise<{ handle: string; session: string; token: string }> {
  const result = await HubAdmin.ofHome(url, home).rotateToken(handle, session);
  saveToken(home, result.session, result.handle, result.token);
  return result;
}

export function saveToken(home: string, session: string, handle: string, token: string): void {
  const file = path.join(home, CREDENTIALS_FILENAME);
  let all: Record<string, string> = {};
  try {
    all = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
  } catch {
    // None kept yet (or unreadable): this one starts the file again.
    all = {};
  }
  all[`${session}/${handle.toLowerCase()}`] = token;
  fs.mkdirSync(home, { recursive: true, mode: PRIVATE_DIR_MODE });
  writeFileAtomically(file, `${JSON.stringify(all, null, 2)}\n`, 0o600);
}
