import fs from 'node:fs';
import path from 'node:path';
import { CREDENTIALS_FILENAME } from '../config/defaults.js';
import { ParleyError, parleyErrorFromBody } from '../errors/parley-error.js';
import { PRIVATE_DIR_MODE } from '../home/private-home.js';
import { writeFileAtomically } from '../util/atomic-write.js';

/** The CLI's side of the HTTP API: the hub's address, requests, and the token cache in the home. */
export { hubUrl } from './hub-address.js';
export { loadToken } from './credentials.js';

/**
 * One request to the hub. Over node:http rather than fetch: a one-shot command
 * makes a single request, and loading fetch's client (undici) would cost it
 * more than the request itself.
 */
export async function callHub<T>(url: string, method: string, route: string, token: string, body?: unknown): Promise<T> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  let response: { status: number; contentType: string; text: string };
  try {
    response = await send(new URL(`${url}${route}`), method, {
      authorization: `Bearer ${token}`,
      ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }),
    }, payload);
  } catch {
    throw new ParleyError('HUB_CLOSED', `No hub answers at ${url}; start one with "parley serve" (or give its address with --url or PARLEY_URL).`);
  }
  const ok = response.status >= 200 && response.status < 300;
  if (ok && !response.contentType.includes('application/json')) {
    // Exports and other documents come back as text.
    return { body: response.text } as T;
  }
  let payloadIn: unknown = {};
  try {
    payloadIn = JSON.parse(response.text) as unknown;
  } catch {
    payloadIn = {};
  }
  if (!ok) throw parleyErrorFromBody(payloadIn, response.status);
  return payloadIn as T;
}

async function send(target: URL, method: string, headers: Record<string, string>, payload: string | undefined): Promise<{ status: number; contentType: string; text: string }> {
  const { request } = target.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(target, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
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
  writeFileAtomically(file, `${JSON.stringify(all, null, 2)}\n`, 0o600);
}
