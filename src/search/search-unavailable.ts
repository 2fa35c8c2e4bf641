import { ParleyError } from '../errors/parley-error.js';
import { describeStorageFailure, storageFailureOf } from '../errors/storage-failure.js';

/**
 * What search answers while its indexer is down: a storage failure (a full
 * disk) said as such, with the file; anything else as an internal error the
 * hub recovers from by itself.
 */
export function searchUnavailable(file: string, failure: Error | undefined): ParleyError {
  const storage = storageFailureOf(failure);
  if (storage) {
    return new ParleyError(
      'STORAGE_UNAVAILABLE',
      `Search is unavailable for now. ${describeStorageFailure(storage, `the search index ${file}`)} Search comes back by itself once it can write again.`,
    );
  }
  return new ParleyError(
    'INTERNAL',
    `Search is unavailable for now: ${failure?.message ?? 'the indexer stopped'}. The hub restarts the indexer by itself; try again in a few seconds.`,
  );
}
