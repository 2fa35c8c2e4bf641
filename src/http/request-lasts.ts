import type { Context } from 'hono';
import type { AuthVariables } from './auth.js';
import { unauthorized } from './http-error.js';

/**
 * Runs a long operation (a wait) with a signal that aborts when the client
 * goes away or the token it came with is revoked; a revoked token's answer is
 * an error, never the result.
 */
export async function whileRequestLasts<T>(c: Context<{ Variables: AuthVariables }>, operation: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const revoked = c.get('credential')?.revoked;
  const ended = new AbortController();
  const end = (): void => ended.abort();
  const gone = c.req.raw.signal;
  gone.addEventListener('abort', end, { once: true });
  revoked?.addEventListener('abort', end, { once: true });
  if (revoked?.aborted) end();
  try {
    const result = await operation(ended.signal);
    if (revoked?.aborted) throw unauthorized('The token this wait was made with has been revoked; sign in or get a new token.');
    return result;
  } finally {
    // The token's signal outlives this request: leave no listener on it.
    gone.removeEventListener('abort', end);
    revoked?.removeEventListener('abort', end);
  }
}
