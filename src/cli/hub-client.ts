import fs from 'node:fs';
import path from 'node:path';
import { CREDENTIALS_FILENAME, DEFAULT_URL } from '../config/defaults.js';
import { ParleyError, parleyErrorFromBody } from '../errors/parley-error.js';
import { PRIVATE_DIR_MODE } from '../store/private-home.js';

/** The CLI's side of the HTTP API: the hub's address, requests, and the token cache in the home. */
export function hubUrl(env: NodeJS.ProcessEnv = process.env): string {
  return (env.PARLEY_URL || DEFAULT_URL).replace(/\/+$/, '');
}

export async function callHub<T>(url: string, method: string, route: string, token: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${url}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ParleyError('HUB_CLOSED', `No hub answers at ${url}; start one with "parley serve" (or set PARLEY_URL).`);
  }
  if (response.ok && !(response.headers.get('content-type') ?? '').includes('application/json')) {
    // Exports and other documents come back as text.
    return { body: await response.text() } as T;
  }
  const payload: unknown = await response.json().catch(() => ({}));
  if (!response.ok) throw parleyErrorFromBody(payload, response.status);
  return payload as T;
}

/** Tokens the CLI received, kept in `<home>/credentials.json` (0600) by session and handle. */
export function saveToken(home: string, session: string, handle: string, token: string): void {
  const file = path.join(home, CREDENTIALS_FILENAME);
  let all: Record<string, string> = {};
  try {
    all = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
  } catch {
    all = {};
  }
  all[`${session}/${handle.toLowerCase()}`] = token;
  fs.mkdirSync(home, { recursive: true, mode: PRIVATE_DIR_MODE });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temporary, file);
}

export function loadToken(home: string, session: string, handle: string): string | undefined {
  try {
    const all = JSON.parse(fs.readFileSync(path.join(home, CREDENTIALS_FILENAME), 'utf8')) as Record<string, string>;
    return all[`${session}/${handle.toLowerCase()}`];
  } catch {
    return undefined;
  }
}
