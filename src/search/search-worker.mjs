// The full-text indexer, on a worker thread of its own with its own SQLite
// file, so that tokenizing and indexing message text uses the second core
// instead of the posting path. Plain JavaScript (not compiled) so the same
// file runs from the sources and from dist/.
import fs from 'node:fs';
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/** How much lower than the hub's the indexer's priority is (nice levels). */
const INDEXER_NICENESS = 10;
lowerPriority();

const { file, batchSize, maxDelayMs, storeId, maxSeq, diskFull, prunedTrimmedUpTo, latestPruned } = workerData;
const db = new Database(file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec(`
  CREATE TABLE IF NOT EXISTS docs (
    seq INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    -- NULL for everyone in the session; the two participant ids of a DM otherwise.
    audience TEXT
  );
  CREATE VIRTUAL TABLE IF NOT EXISTS docs_fts USING fts5(
    text, content = '', contentless_delete = 1, detail = 'column', tokenize = 'unicode61 remove_diacritics 2'
  );
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value);
`);

// The index is derived from one store's log: if it was made for another store,
// holds seqs the store no longer has, or missed pruned events whose record the
// store has since dropped, start it over (with nothing pruned left to apply).
const indexedFor = db.prepare("SELECT value FROM meta WHERE key = 'store_id'").get()?.value;
const indexedUpTo = db.prepare("SELECT value FROM meta WHERE key = 'indexed_seq'").get()?.value ?? 0;
const prunedUpTo = db.prepare("SELECT value FROM meta WHERE key = 'pruned_mark'").get()?.value ?? 0;
if (indexedFor !== storeId || indexedUpTo > maxSeq || prunedUpTo < prunedTrimmedUpTo) {
  db.transaction(() => {
    db.exec('DELETE FROM docs');
    db.exec("INSERT INTO docs_fts (docs_fts) VALUES ('delete-all')");
    db.exec("DELETE FROM meta");
    db.prepare("INSERT INTO meta (key, value) VALUES ('store_id', ?)").run(storeId);
    db.prepare("INSERT INTO meta (key, value) VALUES ('pruned_mark', ?)").run(latestPruned);
  })();
}
const insertDoc = db.prepare('INSERT OR IGNORE INTO docs (seq, session_id, thread_id, audience) VALUES (?, ?, ?, ?)');
const insertText = db.prepare('INSERT INTO docs_fts (rowid, text) VALUES (?, ?)');
const setWatermark = db.prepare("INSERT INTO meta (key, value) VALUES ('indexed_seq', ?) ON CONFLICT (key) DO UPDATE SET value = MAX(value, excluded.value)");
const getWatermark = db.prepare("SELECT value FROM meta WHERE key = 'indexed_seq'");
// Retention: a pruned event leaves the index too (contentless_delete makes a delete by rowid cheap).
const hasDoc = db.prepare('SELECT 1 FROM docs WHERE seq = ?');
const deleteDoc = db.prepare('DELETE FROM docs WHERE seq = ?');
const deleteText = db.prepare('DELETE FROM docs_fts WHERE rowid = ?');
const setPrunedMark = db.prepare("INSERT INTO meta (key, value) VALUES ('pruned_mark', ?) ON CONFLICT (key) DO UPDATE SET value = MAX(value, excluded.value)");
const getPrunedMark = db.prepare("SELECT value FROM meta WHERE key = 'pruned_mark'");

// Tests: a file that cannot grow fails exactly as a full disk does (SQLITE_FULL).
const DEFAULT_MAX_PAGE_COUNT = db.pragma('max_page_count', { simple: true });
function simulateDiskFull(full) {
  db.pragma(`max_page_count = ${full ? db.pragma('page_count', { simple: true }) : DEFAULT_MAX_PAGE_COUNT}`);
}
if (diskFull) simulateDiskFull(true);

let pending = [];
let timer;
let broken = false;
let indexed = getWatermark.get()?.value ?? 0;
let prunedMark = getPrunedMark.get()?.value ?? 0;

const deleteBatch = db.transaction((seqs, record) => {
  for (const seq of seqs) {
    if (!hasDoc.get(seq)) continue;
    deleteText.run(seq);
    deleteDoc.run(seq);
  }
  setPrunedMark.run(record);
});

/** Deletes pruned events (after indexing what came before them) and records the store's pruned record as applied. */
function prune(seqs, record) {
  flush();
  if (broken) return;
  try {
    deleteBatch(seqs, record);
    prunedMark = Math.max(prunedMark, record);
  } catch (error) {
    // The mark stays below this record: the restarted indexer replays it from the store.
    broken = true;
    parentPort.postMessage({ type: 'error', message: String(error?.message ?? error), code: error?.code });
  }
}

const indexBatch = db.transaction((docs) => {
  let top = indexed;
  for (const doc of docs) {
    if (doc.seq <= indexed) continue;
    if (insertDoc.run(doc.seq, doc.session, doc.thread, doc.audience ?? null).changes > 0) insertText.run(doc.seq, doc.text);
    if (doc.seq > top) top = doc.seq;
  }
  if (top > indexed) setWatermark.run(top);
  return top;
});

function flush() {
  if (timer) {
    clearTimeout(timer);
    timer = undefined;
  }
  if (pending.length === 0 || broken) return;
  const docs = pending;
  pending = [];
  try {
    indexed = Math.max(indexed, indexBatch(docs));
  } catch (error) {
    // Index nothing more: the watermark stays below this batch, so the restarted indexer redoes it.
    broken = true;
    pending = [];
    parentPort.postMessage({ type: 'error', message: String(error?.message ?? error), code: error?.code });
  }
}

parentPort.on('message', (message) => {
  switch (message.type) {
    case 'index':
      for (const doc of message.docs) pending.push(doc);
      if (pending.length >= batchSize) flush();
      else if (!timer) timer = setTimeout(flush, maxDelayMs);
      break;
    case 'flush':
      flush();
      parentPort.postMessage({ type: 'flushed', id: message.id, indexed, prunedMark });
      break;
    case 'delete':
      prune(message.seqs, message.record);
      break;
    case 'disk-full':
      simulateDiskFull(message.full);
      break;
    case 'close':
      flush();
      db.close();
      parentPort.postMessage({ type: 'closed' });
      parentPort.close();
      break;
    default:
      break;
  }
});

parentPort.postMessage({ type: 'ready', indexed, prunedMark });

/**
 * Indexing is background work: with every core busy (a hub catching up on a
 * peer's history checks, stores and indexes each event at once), storing and
 * delivering go first and the index follows a little behind. On Linux a
 * thread has a priority of its own (its id is the last part of
 * /proc/thread-self); elsewhere, or where lowering it is not allowed, the
 * indexer runs at the hub's priority.
 */
function lowerPriority() {
  try {
    const threadId = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isSafeInteger(threadId) && threadId > 0) os.setPriority(threadId, Math.min(19, os.getPriority(threadId) + INDEXER_NICENESS));
  } catch {
    // Not Linux, or not allowed: the same priority as the hub.
  }
}
