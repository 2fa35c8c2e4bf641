import { COORDINATOR_LOCK_FILENAME, COORDINATOR_LOCK_INFO_FILENAME } from '../config/defaults.js';
import { ParleyError } from '../errors/parley-error.js';
import { acquireExclusiveLock, type HomeLock, type LockHolder } from '../home/home-lock.js';

/**
 * One coordinator per home: two would both see the same triggers and answer
 * each twice. The one inside `parley serve` and `parley coordinate` take the
 * same exclusive lock in the home (released by the kernel if the holder
 * dies), and a second is refused with the pid of the first.
 */
export function acquireCoordinatorLock(home: string): HomeLock {
  return acquireExclusiveLock(home, { lockFilename: COORDINATOR_LOCK_FILENAME, infoFilename: COORDINATOR_LOCK_INFO_FILENAME, refused });
}

function refused(home: string, holder: LockHolder | undefined): ParleyError {
  const who = holder ? `pid ${holder.pid}, started ${holder.startedAt}` : 'another process';
  return new ParleyError(
    'HOME_LOCKED',
    `A coordinator is already running on home ${home} (${who}); a second one would answer every message twice. Stop that one first (a "parley coordinate", or a "parley serve" with coordinator.enabled), or use a different --home.`,
    { field: 'coordinator', details: { home, ...(holder ? { holder } : {}) } },
  );
}
