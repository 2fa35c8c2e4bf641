// How the hub notices that its store went back in time while its keys did not
// (a store restored from a backup): the keys directory keeps, at each clean
// close, the store's id and last seq. A store that opens with the same id but
// fewer events lost what came after, including its authors' sender_seq
// counters, which would then be given again with different content. So every
// author gets a new sender epoch: receivers see the reset instead of a replay.

import fs from 'node:fs';
import path from 'node:path';
import { keysDirOf } from '../trust/key-files.js';
import type { Store } from '../store/store.js';

const MARK_FILENAME = 'store-mark.json';

interface StoreMark {
  storeId: string;
  lastSeq: number;
}

/** Whether the store is behind the mark the home's last clean close left. */
export function storeWentBack(home: string, store: Store): { from: number; to: number } | undefined {
  let mark: StoreMark;
  try {
    mark = JSON.parse(fs.readFileSync(path.join(keysDirOf(home), MARK_FILENAME), 'utf8')) as StoreMark;
  } catch {
    return undefined;
  }
  const lastSeq = store.events.maxSeq();
  return mark.storeId === store.storeId && typeof mark.lastSeq === 'number' && mark.lastSeq > lastSeq ? { from: mark.lastSeq, to: lastSeq } : undefined;
}

/** Records the store's id and last seq beside the keys (at a clean close). */
export function markStore(home: string, store: Store): void {
  const mark: StoreMark = { storeId: store.storeId, lastSeq: store.events.maxSeq() };
  fs.mkdirSync(keysDirOf(home), { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(keysDirOf(home), MARK_FILENAME), `${JSON.stringify(mark)}\n`, { mode: 0o600 });
}
