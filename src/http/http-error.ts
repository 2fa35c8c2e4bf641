import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ParleyError, toParleyError } from '../errors/parley-error.js';
import type { Logger } from '../util/logger.js';

/**
 * Every error leaves the HTTP API in one shape, `{error: {code, message, field?}}`,
 * with the status the error map gives its code. Thrown values are converted
 * here, once.
 */
export function errorResponse(c: Context, error: unknown, logger?: Logger): Response {
  const parleyError = toParleyError(error);
  if (parleyError.code === 'INTERNAL') logger?.error('request failed', { error: parleyError.cause ?? parleyError, path: c.req.path });
  const retryAfterMs = parleyError.details?.retryAfterMs;
  if (typeof retryAfterMs === 'number') c.header('retry-after', String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
  return c.json({ error: parleyError.toJSON() }, parleyError.httpStatus as ContentfulStatusCode);
}

export function unauthorized(message = 'Authentication required: send "Authorization: Bearer <token>" (from "parley join").'): ParleyError {
  return new ParleyError('UNAUTHORIZED', message);
}
