import { ParleyError } from '../errors/parley-error.js';

/**
 * A hub may be configured to wait less than the loop asks (its
 * inbox.maxWaitTimeoutMs below the default): it refuses the wait with
 * INVALID_INPUT on timeout_ms, saying its maximum ("... maximum wait of N
 * ms"). The loop then waits that long from there on — or half as long as it
 * asked, when the hub's words do not say — instead of failing every wait.
 * Undefined: the error is no such refusal.
 */
export function shorterWait(error: unknown, asked: number): number | undefined {
  if (!(error instanceof ParleyError) || error.code !== 'INVALID_INPUT' || error.field !== 'timeout_ms') return undefined;
  const said = Number(/maximum wait of (\d+) ms/.exec(error.message)?.[1]);
  if (Number.isInteger(said) && said >= 1 && said < asked) return said;
  return asked > 1 ? Math.floor(asked / 2) : undefined;
}
