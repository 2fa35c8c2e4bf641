import { ParleyError } from '../../src/errors/parley-error.js';

/** Runs `fn`, expecting it to throw a ParleyError, and returns that error. */
export function caught(fn: () => unknown): ParleyError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ParleyError) return error;
    throw new Error(`expected a ParleyError, got ${String(error)}`);
  }
  throw new Error('expected a ParleyError, but nothing was thrown');
}

export const alice = { id: 'a_alice', handle: 'alice' };
export const bob = { id: 'a_bob', handle: 'bob' };
export const carol = { id: 'a_carol', handle: 'carol' };
