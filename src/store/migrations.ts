import type Database from 'better-sqlite3';
import { ParleyError } from '../errors/parley-error.js';

/**
 * Versioned schema migrations. The store's version lives in `PRAGMA
 * user_version`; each migration runs once, in order, inside one transaction.
 * Never edit a released migration: add a new one.
 */
export interface Migration {
  version: number;
  name: string;
  up: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'conversation model',
    up: `
      -- Facts about the store itself, such as its id (derived indexes check they belong to it).
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      INSERT INTO meta (key, value) VALUES ('store_id', lower(hex(randomblob(16))));

      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE COLLATE NOCASE,
        created_at INTEGER NOT NULL
      );

      CREATE TABLE participants (
        id TEXT PRIMARY KEY,
        handle TEXT NOT NULL UNIQUE COLLATE NOCASE,
        kind TEXT NOT NULL CHECK (kind IN ('agent', 'human')),
        profile TEXT NOT NULL,
        public_key BLOB NOT NULL,
        -- The hub holds the key of the participants it hosts; the identity work decides custody.
        secret_key BLOB NOT NULL,
        created_at INTEGER NOT NULL
      );

      CREATE TABLE session_members (
        session_id TEXT NOT NULL REFERENCES sessions(id),
        participant_id TEXT NOT NULL REFERENCES participants(id),
        joined_at INTEGER NOT NULL,
        PRIMARY KEY (session_id, participant_id)
      ) WITHOUT ROWID;

      CREATE TABLE threads (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id),
        kind TEXT NOT NULL CHECK (kind IN ('channel', 'dm', 'side')),
        name TEXT NOT NULL,
        parent_id TEXT REFERENCES threads(id),
        dm_key TEXT,
        created_by TEXT NOT NULL,
        created_seq INTEGER NOT NULL,
        state TEXT NOT NULL
      );
      CREATE UNIQUE INDEX threads_channel_name ON threads(session_id, name) WHERE kind = 'channel';
      CREATE UNIQUE INDEX threads_dm_pair ON threads(session_id, dm_key) WHERE kind = 'dm';
      CREATE INDEX threads_by_session ON threads(session_id);

      CREATE TABLE memberships (
        thread_id TEXT NOT NULL REFERENCES threads(id),
        participant_id TEXT NOT NULL REFERENCES participants(id),
        subscription TEXT NOT NULL CHECK (subscription IN ('subscribed', 'muted', 'unsubscribed')),
        invited INTEGER NOT NULL DEFAULT 0,
        invite_profile TEXT,
        hard_muted INTEGER NOT NULL DEFAULT 0,
        muted_by TEXT,
        PRIMARY KEY (thread_id, participant_id)
      ) WITHOUT ROWID;
      CREATE INDEX memberships_by_participant ON memberships(participant_id);

      CREATE TABLE events (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        session_id TEXT NOT NULL,
        thread_id TEXT NOT NULL,
        ts INTEGER NOT NULL,
        type TEXT NOT NULL,
        from_id TEXT NOT NULL,
        author TEXT NOT NULL,
        to_id TEXT NOT NULL,
        content TEXT NOT NULL,
        meta TEXT
      );
      CREATE INDEX events_by_thread ON events(thread_id, seq);
      CREATE INDEX events_by_session ON events(session_id, seq);

      -- Full-text search lives in search.db, written by its own worker thread (src/search).

      CREATE TABLE cursors (
        participant_id TEXT NOT NULL,
        thread_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        PRIMARY KEY (participant_id, thread_id)
      ) WITHOUT ROWID;

      -- Per-recipient delivery state of targeted events (DMs, requests, responses, mentions, prods…).
      CREATE TABLE deliveries (
        recipient_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        session_id TEXT NOT NULL,
        thread_id TEXT NOT NULL,
        reason TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'acknowledged')),
        delivered_at INTEGER,
        acknowledged_at INTEGER,
        PRIMARY KEY (recipient_id, seq)
      ) WITHOUT ROWID;
      CREATE INDEX deliveries_by_state ON deliveries(recipient_id, session_id, state, seq);

      CREATE TABLE requests (
        request_id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL,
        thread_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        from_id TEXT NOT NULL,
        to_id TEXT NOT NULL,
        intent TEXT NOT NULL,
        hop INTEGER NOT NULL,
        reply_to TEXT,
        status TEXT NOT NULL,
        updated_seq INTEGER NOT NULL
      );
      CREATE INDEX requests_to ON requests(to_id, session_id, status);
      CREATE INDEX requests_from ON requests(from_id, session_id, status);
    `,
  },
  {
    version: 2,
    name: 'bearer tokens',
    up: `
      -- A bearer token names one participant in one session. Only its SHA-256 is kept.
      CREATE TABLE tokens (
        token_hash TEXT PRIMARY KEY,
        participant_id TEXT NOT NULL REFERENCES participants(id),
        session_id TEXT NOT NULL REFERENCES sessions(id),
        created_at INTEGER NOT NULL
      );
      CREATE INDEX tokens_by_seat ON tokens(participant_id, session_id);
    `,
  },
  {
    version: 3,
    name: 'injected delivery state',
    up: `
      -- A delivery may now be injected (put into the agent's context by a hook or the LLM middleware),
      -- between delivered and acknowledged. SQLite cannot change a CHECK, so the table is rebuilt.
      CREATE TABLE deliveries_v3 (
        recipient_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        session_id TEXT NOT NULL,
        thread_id TEXT NOT NULL,
        reason TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'injected', 'acknowledged')),
        delivered_at INTEGER,
        injected_at INTEGER,
        acknowledged_at INTEGER,
        PRIMARY KEY (recipient_id, seq)
      ) WITHOUT ROWID;
      INSERT INTO deliveries_v3 (recipient_id, seq, session_id, thread_id, reason, state, delivered_at, acknowledged_at)
        SELECT recipient_id, seq, session_id, thread_id, reason, state, delivered_at, acknowledged_at FROM deliveries;
      DROP TABLE deliveries;
      ALTER TABLE deliveries_v3 RENAME TO deliveries;
      CREATE INDEX deliveries_by_state ON deliveries(recipient_id, session_id, state, seq);
      -- The sender's view: every recipient of one event.
      CREATE INDEX deliveries_by_seq ON deliveries(seq);
      -- Who sent what (the sender's view of its deliveries).
      CREATE INDEX events_by_sender ON events(from_id, session_id, seq);
    `,
  },
  {
    version: 4,
    name: 'local access overrides',
    up: `
      -- Without a roster (local mode), a participant's permission role (access) set by an admin, overriding the config.
      CREATE TABLE local_access (
        participant_id TEXT PRIMARY KEY REFERENCES participants(id),
        access TEXT NOT NULL CHECK (access IN ('observer', 'member', 'operator', 'admin'))
      ) WITHOUT ROWID;
    `,
  },
];

export const LATEST_STORE_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

export function currentVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Refuses, before anything is changed, a store written by a newer Parley. */
export function assertKnownVersion(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): void {
  const version = currentVersion(db);
  const latest = migrations[migrations.length - 1]?.version ?? 0;
  if (version > latest) {
    throw new ParleyError(
      'STORE_VERSION',
      `The store is at schema version ${version}, newer than this Parley understands (${latest}). Upgrade Parley or use another home.`,
    );
  }
}

/** Brings the store to the latest version; refuses a store written by a newer Parley. */
export function migrate(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): { from: number; to: number } {
  const from = currentVersion(db);
  const latest = migrations[migrations.length - 1]?.version ?? 0;
  if (from > latest) {
    throw new ParleyError(
      'STORE_VERSION',
      `The store is at schema version ${from}, newer than this Parley understands (${latest}). Upgrade Parley or use another home.`,
    );
  }
  for (const migration of migrations) {
    if (migration.version <= from) continue;
    db.transaction(() => {
      db.exec(migration.up);
      db.pragma(`user_version = ${migration.version}`);
    })();
  }
  return { from, to: currentVersion(db) };
}
