import type { ErrorCode } from '../../src/errors/codes.js';
import { ParleyError } from '../../src/errors/parley-error.js';

/**
 * Runs `fn`, which must refuse synchronously with a ParleyError (of `code`,
 * when given), and returns that error for the test to look into. Anything
 * else fails the test: no throw, another error class, another code.
 */
export function refusal(fn: () => unknown, code?: ErrorCode): ParleyError {
  let thrown: unknown;
  let threw = false;
  try {
    fn();
  } catch (error) {
    threw = true;
    thrown = error;
  }
  if (!threw) throw new Error(`expected a ParleyError${code ? ` ${code}` : ''}, but nothing was thrown`);
  if (!(thrown instanceof ParleyError)) throw new Error(`expected a ParleyError, got ${String(thrown)}`, { cause: thrown });
  if (code && thrown.code !== code) throw new Error(`expected ${code}, got ${thrown.code}: ${thrown.message}`, { cause: thrown });
  return thrown;
}
