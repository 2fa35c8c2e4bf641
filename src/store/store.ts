import Database from 'better-sqlite3';
import { AccessStore } from './access-store.js';
import { Checkpointer, type CheckpointerOptions } from './checkpointer.js';
import { DirectoryStore } from './directory-store.js';
import { DeliveryStore } from './delivery-store.js';
import { EventLog } from './event-log.js';
import { GroupCommit } from './group-commit.js';
import { createPrivateFile } from '../home/private-home.js';
import { assertKnownVersion, migrate } from './migrations.js';
import { HistoryStore } from './history-store.js';
import { PeerCursorStore } from './peer-cursor-store.js';
import { RequestStore } from './request-store.js';
import { RosterStore } from './roster-store.js';
import { SenderStore } from './sender-store.js';
import { RetentionStore } from './retention-store.js';
import { ThreadStore } from './thread-store.js';
import { TokenStore } from './token-store.js';

/**
 * The hub's SQLite store: one file in WAL mode, written by one process (the
 * home lock guarantees it), with group commit for writes.
 */
export interface StoreOptions {
  file: string;
  synchronous?: 'full' | 'normal';
  /** Called when a batch fails to commit, so the owner can reload in-memory state. */
  onBatchFailed?: (error: unknown) => void;
  /** Called when an after-commit observer throws (the data is committed regardless). */
  onCallbackFailed?: (error: unknown) => void;
  /** The WAL checkpointer's settings (defaults in src/config/defaults.ts). */
  checkpoint?: Omit<CheckpointerOptions, 'onFailed'>;
}

export class Store {
  readonly db: Database.Database;
  readonly writes: GroupCommit;
  readonly events: EventLog;
  readonly directory: DirectoryStore;
  readonly threads: ThreadStore;
  readonly deliveries: DeliveryStore;
  readonly requests: RequestStore;
  readonly tokens: TokenStore;
  readonly senders: SenderStore;
  readonly rosters: RosterStore;
  readonly retention: RetentionStore;
  readonly access: AccessStore;
  readonly peerCursors: PeerCursorStore;
  readonly history: HistoryStore;
  /** Checkpoints the WAL off the writer's commits. */
  readonly checkpointer: Checkpointer;

  constructor(
    readonly file: string,
    db: Database.Database,
    onBatchFailed?: (error: unknown) => void,
    onCallbackFailed?: (error: unknown) => void,
    synchronous: 'FULL' | 'NORMAL' = 'FULL',
    checkpoint: Omit<CheckpointerOptions, 'onFailed'> = {},
  ) {
    this.db = db;
    const checkpointer = new Checkpointer(db, file, synchronous, { ...checkpoint, onFailed: (error) => onCallbackFailed?.(error) });
    this.checkpointer = checkpointer;
    this.writes = new GroupCommit(db, onBatchFailed, onCallbackFailed, () => checkpointer.committed());
    this.events = new EventLog(db);
    this.directory = new DirectoryStore(db);
    this.threads = new ThreadStore(db);
    this.deliveries = new DeliveryStore(db);
    this.requests = new RequestStore(db);
    this.tokens = new TokenStore(db);
    this.senders = new SenderStore(db);
    this.rosters = new RosterStore(db);
    this.retention = new RetentionStore(db);
    this.access = new AccessStore(db);
    this.peerCursors = new PeerCursorStore(db);
    this.history = new HistoryStore(db, () => this.events.visibleUpTo, this.retention);
    const summaries = this.history.summaries;
    this.events.onAppend = (row) => summaries.appended(row);
    this.writes.onBatchEnd((committed) => summaries.batchEnded(committed));
  }

  /** A random id fixed when the store was created. */
  get storeId(): string {
    return (this.db.prepare("SELECT value FROM meta WHERE key = 'store_id'").get() as { value: string }).value;
  }

  integrityCheck(): string {
    return this.db.pragma('integrity_check', { simple: true }) as string;
  }

  close(): void {
    if (!this.db.open) return;
    this.writes.close();
    this.checkpointer.stop();
    // Leave a compact file behind: fold the WAL back into the database.
    try {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      this.db.close();
    }
  }
}

export function openStore(options: StoreOptions): Store {
  // Created 0600 first: SQLite gives the -wal and -shm files the same mode.
  createPrivateFile(options.file);
  const db = new Database(options.file);
  try {
    assertKnownVersion(db);
    // A new file frees the pages retention empties (incremental_vacuum); this can only be chosen before the first table.
    if (isEmptyDatabase(db)) db.pragma('auto_vacuum = INCREMENTAL');
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
    db.pragma('foreign_keys = ON');
    // Bounded page cache (KiB): memory stays flat however long the history grows.
    db.pragma('cache_size = -8192');
    db.pragma('temp_store = MEMORY');
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return new Store(options.file, db, options.onBatchFailed, options.onCallbackFailed, options.synchronous === 'normal' ? 'NORMAL' : 'FULL', options.checkpoint);
}

function isEmptyDatabase(db: Database.Database): boolean {
  return (db.prepare('SELECT COUNT(*) AS n FROM sqlite_schema').get() as { n: number }).n === 0;
}
