import fs from 'node:fs';
import path from 'node:path';
import { CREDENTIALS_FILENAME } from '../config/defaults.js';

/**
 * The token `parley join` kept for a handle in a session, from
 * `<home>/credentials.json` (written by saveToken in registration.ts). Node's
 * built-ins only: `parley hook` reads it on every tool call.
 */
export function loadToken(home: string, session: string, handle: string): string | undefined {
  try {
    const all = JSON.parse(fs.readFileSync(path.join(home, CREDENTIALS_FILENAME), 'utf8')) as Record<string, unknown>;
    const token = all[`${session}/${handle.toLowerCase()}`];
    return typeof token === 'string' ? token : undefined;
  } catch {
    return undefined;
  }
}
