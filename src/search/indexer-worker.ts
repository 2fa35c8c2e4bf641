/**
 * The search indexer's worker thread (search-worker.mjs), as the index starts
 * it: the settings it is given, the messages it answers with, and the start
 * itself, which throws away an unreadable index and rebuilds it from the log.
 */

import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { storageFailureOf } from '../errors/storage-failure.js';
import { createPrivateFile } from '../home/private-home.js';
import type { Logger } from '../util/logger.js';
import type { SearchSource } from './search-source.js';

/** The worker writes this many documents in one transaction at most... */
export const DEFAULT_INDEX_BATCH = 2000;
/** ...and waits at most this long for a batch to fill. */
export const DEFAULT_INDEX_DELAY_MS = 20;

/** What the worker says: ready to index, a flush done (with the highest seq indexed), closed, or a failure. */
export interface WorkerMessage {
  type: 'ready' | 'flushed' | 'closed' | 'error';
  id?: number;
  indexed?: number;
  /** The latest pruned record the index has applied. */
  prunedMark?: number;
  message?: string;
  code?: string;
}

/**
 * Starts a worker on `file` and waits until it is ready. An unreadable index
 * is thrown away and rebuilt from the log (it is derived); a storage failure
 * (a full or read-only disk) is not a reason to throw it away.
 */
export async function spawnIndexer(file: string, logger: Logger, source: SearchSource, diskFull: boolean): Promise<Worker> {
  try {
    return await spawnOnce(file, source, diskFull);
  } catch (error) {
    if (storageFailureOf(error)) throw error;
    logger.warn('search index unreadable; rebuilding it from the log', { error: String((error as Error)?.message ?? error) });
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
    return spawnOnce(file, source, diskFull);
  }
}

async function spawnOnce(file: string, source: SearchSource, diskFull: boolean): Promise<Worker> {
  // The indexer starts after the hub has opened: a home removed meanwhile is not made again.
  createPrivateFile(file, { inExistingDir: true });
  // Through its folder's name: the same file from the command's bundle (dist/src/bundle, see scripts/bundle-cli.mjs).
  const worker = new Worker(new URL('../search/search-worker.mjs', import.meta.url), {
    workerData: {
      file,
      batchSize: DEFAULT_INDEX_BATCH,
      maxDelayMs: DEFAULT_INDEX_DELAY_MS,
      storeId: source.storeId,
      maxSeq: source.maxSeq(),
      prunedTrimmedUpTo: source.prunedTrimmedUpTo(),
      latestPruned: source.latestPrunedId(),
      diskFull,
    },
    // The indexer holds little but churns through every message: a small young generation keeps its memory flat.
    resourceLimits: { maxYoungGenerationSizeMb: 4 },
  });
  await new Promise<void>((resolve, reject) => {
    const onMessage = (message: WorkerMessage): void => {
      if (message.type !== 'ready') return;
      worker.off('message', onMessage);
      worker.off('error', reject);
      resolve();
    };
    worker.on('message', onMessage);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`search indexer exited with code ${code} while starting`)));
  });
  return worker;
}
