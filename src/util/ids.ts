import crypto from 'node:crypto';
import { monotonicFactory } from 'ulid';

/**
 * ULID generation with a pooled CSPRNG: the ulid library asks for one random
 * number per character, and one crypto call each made it a visible part of
 * the posting path. Refilling a pool of 4096 values keeps it cryptographic and
 * cheap.
 */
const POOL_SIZE = 4096;

export function pooledRandom(): () => number {
  const pool = new Uint32Array(POOL_SIZE);
  let next = POOL_SIZE;
  return () => {
    if (next === POOL_SIZE) {
      crypto.randomFillSync(pool);
      next = 0;
    }
    return (pool[next++] as number) / 0x1_0000_0000;
  };
}

/** Monotonic ULIDs: strictly increasing even within one millisecond. */
export function ulidFactory(now: () => number): () => string {
  const next = monotonicFactory(pooledRandom());
  return () => next(now());
}
