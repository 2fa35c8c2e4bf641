import type { Logger } from './logger.js';

/**
 * Starts work the caller does not wait for. Its failure is logged with what
 * it was doing, never dropped: a promise left alone would lose its rejection
 * (and, unhandled, end the process). Use this instead of `void promise` or
 * `.catch(() => undefined)`; the lint rules refuse those.
 */
export function inBackground(work: Promise<unknown>, logger: Pick<Logger, 'warn'>, what: string): void {
  work.then(
    () => undefined,
    (error: unknown) => logger.warn(`${what} failed`, { error: error instanceof Error ? error.message : String(error) }),
  );
}

/**
 * Waits for a promise without taking its failure, for when that failure is
 * reported elsewhere (to the caller that made it) and this wait only orders
 * what comes next. Use this instead of `.catch(() => undefined)`.
 */
export function settled(work: Promise<unknown>): Promise<void> {
  return work.then(
    () => undefined,
    () => undefined,
  );
}
