// Checkpoints the store's WAL on a thread and a connection of its own, so that
// the writer's COMMIT never carries a checkpoint (see src/store/checkpointer.ts).
// Plain JavaScript (not compiled) so the same file runs from the sources and from dist/.
//
// It talks to the writer through one shared Int32Array (the slots are named in
// checkpointer.ts and repeated here): the writer counts its commits in COMMITS
// and this thread sleeps on it, so a commit costs the writer an atomic add and
// a notify, never a message.
import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import os from 'node:os';
import Database from 'better-sqlite3';
import { workerData } from 'node:worker_threads';

const STATE = 0;
const COMMITS = 1;
const STOP = 2;
const PASSES = 3;
const LOG_FRAMES = 4;
const BACKFILLED = 5;
const REQUESTED = 6;
const SERVED = 7;
const HELD = 8;
const IN_PASS = 9;
// CANCELLED (2) is set by the writer when it closes before this thread started.
const [NOT_STARTED, RUNNING, DONE, FAILED] = [0, 1, 3, 4];

const { control, file, synchronous, intervalMs, thresholdPages } = workerData;
const slots = new Int32Array(control);

/**
 * Pages in the WAL now: mxFrame of the wal-index header, at byte 16 of the
 * -shm file in the machine's byte order (SQLite's documented WAL-index
 * format). Read, not asked of SQLite, because asking is a checkpoint, and a
 * checkpoint that catches up makes the writer start the WAL over, which costs
 * the writer an fsync of the WAL header in its next commit: so the WAL is
 * checkpointed only once it is large, and starts over rarely.
 */
const shm = { fd: undefined, buffer: Buffer.alloc(4) };
function walPages() {
  try {
    shm.fd ??= fs.openSync(`${file}-shm`, 'r');
    if (fs.readSync(shm.fd, shm.buffer, 0, 4, 16) !== 4) return thresholdPages;
    return os.endianness() === 'LE' ? shm.buffer.readUInt32LE(0) : shm.buffer.readUInt32BE(0);
  } catch {
    // No -shm to read: checkpoint as if the WAL were large.
    return thresholdPages;
  }
}

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
      // A pass asked for (Checkpointer.nextPass) runs whatever the WAL's size.
      const requested = Atomics.load(slots, REQUESTED);
      // Held while the writer checkpoints itself (the WAL grew past its fallback size): its checkpoint must not find this one running.
      const held = Atomics.load(slots, HELD) === 1;
      if (!held && (requested !== Atomics.load(slots, SERVED) || walPages() >= thresholdPages)) {
        Atomics.store(slots, IN_PASS, 1);
        const { busy, log, checkpointed } = checkpoint.get();
        Atomics.store(slots, IN_PASS, 0);
        Atomics.store(slots, LOG_FRAMES, log);
        Atomics.store(slots, BACKFILLED, checkpointed);
        Atomics.store(slots, SERVED, requested);
        Atomics.add(slots, PASSES, 1);
        Atomics.notify(slots, PASSES);
        const caughtUp = busy === 0 && checkpointed >= log;
        // Commits came during the pass: the next pass, at once, is shorter, until one catches up.
        if (!caughtUp && checkpointed > before) {
          before = checkpointed;
          continue;
        }
        before = -1;
      }
      // Small, caught up (the writer starts the WAL over at its next commit) or held by a reader:
      // look again after the next commit, a little later, so that one look takes many commits.
      if (Atomics.load(slots, COMMITS) === seen && Atomics.load(slots, REQUESTED) === Atomics.load(slots, SERVED)) Atomics.wait(slots, COMMITS, seen);
      Atomics.wait(slots, STOP, 0, intervalMs);
    }
  } catch (error) {
    failure = error;
  } finally {
    try {
      if (shm.fd !== undefined) fs.closeSync(shm.fd);
      db?.close();
    } finally {
      finish(failure === undefined ? DONE : FAILED);
    }
  }
  // The writer hears of it as the worker's error event.
  if (failure !== undefined) throw failure;
}
