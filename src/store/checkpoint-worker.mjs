// Checkpoints the store's WAL on a thread and a connection of its own, so that
// the writer's COMMIT never carries a checkpoint (see src/store/checkpointer.ts).
// Plain JavaScript (not compiled) so the same file runs from the sources and from dist/.
//
// It talks to the writer through one shared Int32Array (the slots are named in
// checkpointer.ts and repeated here): the writer counts its commits in COMMITS
// and this thread sleeps on it, so a commit costs the writer an atomic add and
// a notify, never a message.
import Database from 'better-sqlite3';
import { workerData } from 'node:worker_threads';

const STATE = 0;
const COMMITS = 1;
const STOP = 2;
const PASSES = 3;
const LOG_FRAMES = 4;
const BACKFILLED = 5;
// CANCELLED (2) is set by the writer when it closes before this thread started.
const [NOT_STARTED, RUNNING, DONE, FAILED] = [0, 1, 3, 4];

const { control, file, synchronous, intervalMs } = workerData;
const slots = new Int32Array(control);

function finish(state) {
  Atomics.store(slots, STATE, state);
  Atomics.notify(slots, STATE);
}

// Closing before this thread started: it never opens the file.
if (Atomics.compareExchange(slots, STATE, NOT_STARTED, RUNNING) === NOT_STARTED) {
  let db;
  let failure;
  try {
    // No busy wait: a checkpoint that cannot run now runs at a later pass.
    db = new Database(file, { fileMustExist: true, timeout: 0 });
    db.pragma(`synchronous = ${synchronous}`);
    const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
    let before = -1;
    while (Atomics.load(slots, STOP) === 0) {
      const seen = Atomics.load(slots, COMMITS);
      const { busy, log, checkpointed } = checkpoint.get();
      Atomics.store(slots, LOG_FRAMES, log);
      Atomics.store(slots, BACKFILLED, checkpointed);
      Atomics.add(slots, PASSES, 1);
      Atomics.notify(slots, PASSES);
      if (busy === 0 && checkpointed >= log) {
        // Caught up: sleep until the next commit, then a little longer so that one pass takes many commits.
        if (Atomics.load(slots, COMMITS) === seen) Atomics.wait(slots, COMMITS, seen);
        Atomics.wait(slots, STOP, 0, intervalMs);
      } else if (checkpointed <= before) {
        // No progress (a reader holds old pages): try again a little later rather than spin.
        Atomics.wait(slots, STOP, 0, intervalMs);
      }
      // Otherwise commits came during the pass: the next pass, at once, is shorter, until one catches up.
      before = checkpointed;
    }
  } catch (error) {
    failure = error;
  } finally {
    try {
      db?.close();
    } finally {
      finish(failure === undefined ? DONE : FAILED);
    }
  }
  // The writer hears of it as the worker's error event.
  if (failure !== undefined) throw failure;
}
