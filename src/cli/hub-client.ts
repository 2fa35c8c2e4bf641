import fs from 'node:fs';
import path from 'node:path';
import { CREDENTIALS_FILENAME } from '../config/defaults.js';
import { ParleyError } from '../errors/parley-error.js';
import type { ErrorCode } from '../errors/codes.js';
import { PRIVATE_DIR_MODE } from '../store/private-home.js';

/** The CLI's side of the HTTP API: the hub's address, requests, and the token cache in the home. */
export { hubUrl } from './hub-address.js';

export async function callHub<T>(url: string, method: string, route: string, token: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${url}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ParleyError('HUB_CLOSED', `No hub answers at ${url}; start one with "parley serve" (or give its address with --url or PARLEY_URL).`);
  }
  if (response.ok && !(response.headers.get('content-type') ?? '').includes('application/json')) {
    // Exports and other documents come back as text.
    return { body: await response.text() } as T;
  }
  const payload = (await response.json().catch(() => ({}))) as { error?: { code?: ErrorCode; message?: string; field?: string } };
  if (!response.ok) {
    const error = payload.error;
    throw new ParleyError(error?.code ?? 'INTERNAL', error?.message ?? `The hub answered ${response.status}.`, error?.field ? { field: error.field } : {});
  }
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
