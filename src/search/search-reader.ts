/**
 * The read side of search: a read-only connection to search.db and its two
 * ranked queries (in a session, in a thread), both limited to what the
 * viewer may see. Opened at the first search; a restarted indexer may have
 * rebuilt the file, so the index closes this and opens another.
 */

import Database from 'better-sqlite3';

/** Where to search, and for whom: a DM's documents are visible only to its audience. */
export interface SearchScope {
  sessionId: string;
  viewerId: string;
  threadId?: string;
}

export class SearchReader {
  readonly #file: string;
  #db: Database.Database | undefined;
  #queries: { session: Database.Statement; thread: Database.Statement } | undefined;

  constructor(file: string) {
    this.#file = file;
  }

  /** Ranked seqs of matching documents visible to the viewer. `match` is an FTS5 query. */
  seqs(match: string, scope: SearchScope, limit: number): number[] {
    const queries = this.#prepared();
    const rows =
      scope.threadId === undefined
        ? queries.session.all(match, scope.sessionId, scope.viewerId, limit)
        : queries.thread.all(match, scope.threadId, scope.viewerId, limit);
    return (rows as Array<{ seq: number }>).map((r) => r.seq);
  }

  close(): void {
    this.#db?.close();
    this.#db = undefined;
    this.#queries = undefined;
  }

  #prepared(): { session: Database.Statement; thread: Database.Statement } {
    if (!this.#queries) {
      this.#db = new Database(this.#file, { readonly: true, fileMustExist: true });
      const visible = '(d.audience IS NULL OR instr(d.audience, ?) > 0)';
      this.#queries = {
        session: this.#db.prepare(
          `SELECT d.seq FROM docs_fts f JOIN docs d ON d.seq = f.rowid
           WHERE docs_fts MATCH ? AND d.session_id = ? AND ${visible} ORDER BY f.rank LIMIT ?`,
        ),
        thread: this.#db.prepare(
          `SELECT d.seq FROM docs_fts f JOIN docs d ON d.seq = f.rowid
           WHERE docs_fts MATCH ? AND d.thread_id = ? AND ${visible} ORDER BY f.rank LIMIT ?`,
        ),
      };
    }
    return this.#queries;
  }
}
