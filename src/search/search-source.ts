/**
 * What the search index is fed: a document per indexed event, and the log it
 * catches up from (the index is derived from the log and can always be
 * rebuilt from it).
 */

/** One event as the index holds it. */
export interface SearchDoc {
  seq: number;
  session: string;
  thread: string;
  /** For DMs, the participant ids that may see it; absent when the whole session may. */
  audience?: string;
  text: string;
}

/** The log, as the index reads it to catch up. */
export interface SearchSource {
  storeId: string;
  /** The highest seq in the log now. */
  maxSeq(): number;
  /** The documents of up to `limit` events after seq `after`; `last` is the seq of the last event read (undefined when none). */
  docsAfter(after: number, limit: number): { docs: SearchDoc[]; last: number | undefined };
  /** What retention pruned, record by record, after record `id` (the deletes to replay). */
  prunedAfter(id: number, limit: number): Array<{ id: number; seqs: number[] }>;
  /** Records up to this id are dropped from the store: an index that has not applied them is rebuilt. */
  prunedTrimmedUpTo(): number;
  /** The latest pruned record's id (a rebuilt index starts with everything pruned applied). */
  latestPrunedId(): number;
}
