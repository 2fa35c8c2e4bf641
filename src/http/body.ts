import type { Context } from 'hono';
import { ParleyError } from '../errors/parley-error.js';

/** Reads a JSON object body; malformed JSON is INVALID_INPUT naming the body. */
export async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new ParleyError('INVALID_INPUT', 'Invalid body: it is not valid JSON. Send a JSON object with Content-Type: application/json.', {
      field: 'body',
    });
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ParleyError('INVALID_INPUT', 'Invalid body: must be a JSON object.', { field: 'body' });
  }
  return body as Record<string, unknown>;
}

/** A query flag: "true"/"1" is true, absent or "false"/"0" is false; anything else is INVALID_INPUT. */
export function boolQuery(c: Context, name: string): boolean {
  const value = c.req.query(name);
  if (value === undefined || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1' || value === '') return true;
  throw new ParleyError('INVALID_INPUT', `Invalid ${name}: "${value}" is not true or false.`, { field: name });
}

/** A query parameter as an integer, or undefined when absent; anything else is INVALID_INPUT naming it. */
export function intQuery(c: Context, name: string): number | undefined {
  const value = c.req.query(name);
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value)) throw new ParleyError('INVALID_INPUT', `Invalid ${name}: "${value}" is not an integer.`, { field: name });
  return Number(value);
}
