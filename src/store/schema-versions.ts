import crypto from 'node:crypto';
import type Database from 'better-sqlite3';
import { ParleyError } from '../errors/parley-error.js';
import { participantKeyPathOf, writeKeyFile } from '../trust/key-files.js';
import { rawPublicKeyOf } from '../trust/node-id.js';
import { EVENT_SIGNATURE_COLUMNS, signExistingEvents } from './event-signature-migration.js';

/** One version of the store's schema. */
export interface Migration {
  version: number;
  name: string;
  /** SQL, or a step that needs more than SQL (files under the home). */
  up: string | ((db: Database.Database, env: MigrationEnv) => void);
  /** Rewrites the file afterwards (VACUUM), so nothing the migration removed stays in free pages. */
  vacuumAfter?: boolean;
}

/** What a migration may need besides the database: the home the store lives in. */
export interface MigrationEnv {
  home: string;
}

/**
 * The store's schema, version by version: each entry runs once, in order
 * (migrations.ts). Never edit a released one: add a new one at the end.
 */
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
    name: 'private keys out of the store',
    // Each participant's private key moves to its own file under the home's keys/ (0600), and the
    // column goes: a store, a backup of it or an export never holds a private key. Writing a file
    // that already holds the same key is a no-op, so a migration cut short runs again safely.
    up: (db, env) => {
      const rows = db.prepare('SELECT id, public_key, secret_key FROM participants').all() as Array<{ id: string; public_key: Buffer; secret_key: Buffer }>;
      for (const row of rows) {
        const privateKey = crypto.createPrivateKey({ key: row.secret_key, format: 'der', type: 'pkcs8' });
        if (!rawPublicKeyOf(privateKey).equals(row.public_key)) {
          throw new ParleyError('STORE_VERSION', `Participant ${row.id}'s stored private key does not match its public key; the store is damaged. Restore it from a backup.`);
        }
        writeKeyFile(participantKeyPathOf(env.home, row.id), privateKey);
      }
      db.exec('ALTER TABLE participants DROP COLUMN secret_key');
    },
    // Dropping the column frees the pages that held the keys; the rewrite leaves none of their bytes.
    vacuumAfter: true,
  },
  {
    version: 5,
    name: 'event signatures',
    // Each event keeps its author's signature and the signed fields the row has no column for
    // (see src/trust/envelope.ts). Events written before signing are signed here, as they are,
    // by their authors' keys (custodial, in the home since migration 4).
    up: (db, env) => {
      db.exec(EVENT_SIGNATURE_COLUMNS);
      signExistingEvents(db, env.home);
    },
  },
  {
    version: 6,
    name: 'retention',
    up: `
      -- What retention pruned, chunk by chunk (the seqs as a JSON array), so that the search index, a
      -- separate file, can replay deletes it missed (a crash between the two). Trimmed once the index has them.
      CREATE TABLE pruned (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        thread_id TEXT NOT NULL,
        seqs TEXT NOT NULL,
        at INTEGER NOT NULL
      );
      -- Retention keeps the events of a thread's open requests: found by thread.
      CREATE INDEX requests_by_thread ON requests(thread_id, status);
    `,
  },
  {
    version: 7,
    name: 'rosters',
    up: `
      -- Every roster version the hub accepted, in order: the chain a signed export carries, so
      -- that events written under an older version still check against the roster in force then.
      CREATE TABLE rosters (
        version INTEGER PRIMARY KEY,
        org_id TEXT NOT NULL,
        doc TEXT NOT NULL,
        accepted_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 8,
    name: 'local access overrides',
    up: `
      -- Without a roster (local mode), a participant's permission role (access) set by an admin, overriding the config.
      CREATE TABLE local_access (
        participant_id TEXT PRIMARY KEY REFERENCES participants(id),
        access TEXT NOT NULL CHECK (access IN ('observer', 'member', 'operator', 'admin'))
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 9,
    name: 'signatures made after the append',
    up: `
      -- The signatures the hub makes for its custodial authors just after their events are
      -- appended (src/hub/signature-pipeline.ts). Small rows of their own, appended in seq
      -- order: storing them in events.sig would write every event's page twice. events.sig
      -- keeps the signatures known at the append (an envelope signed elsewhere).
      CREATE TABLE event_sigs (
        seq INTEGER PRIMARY KEY,
        sig BLOB NOT NULL
      );
    `,
  },
  {
    version: 10,
    name: 'what an envelope signed elsewhere signed',
    up: `
      -- An event its author signed elsewhere (an envelope) is shown with the hub's receipt time in ts and
      -- the meta the hub computed in meta; what the author signed is kept here, for its signature.
      -- NULL signed_ts: the row's own ts and meta are what was signed (every event the hub signs, and
      -- envelopes taken in before this version). With signed_ts set, a NULL signed_meta is "no meta".
      ALTER TABLE events ADD COLUMN signed_ts INTEGER;
      ALTER TABLE events ADD COLUMN signed_meta TEXT;
    `,
  },
  {
    version: 11,
    name: 'token kinds',
    up: `
      -- What a token is for (src/schema/token.ts): a coordinator's run tokens are told apart, so
      -- that the hub revokes exactly those at start. Earlier tokens are participants' own.
      ALTER TABLE tokens ADD COLUMN kind TEXT NOT NULL DEFAULT 'participant' CHECK (kind IN ('participant', 'coordinator'));
    `,
  },
  {
    version: 12,
    name: 'events indexes the post path can afford',
    up: `
      -- An index by author is written at a different place for every author: a commit of posts
      -- from many authors rewrote one of its pages per post in the WAL, more than the rows
      -- themselves. The sender's view of its deliveries reads the deliveries' own index of
      -- their sender instead (version 13).
      DROP INDEX IF EXISTS events_by_sender;
      -- The replay check of envelopes signed elsewhere: only rows stored with their signature,
      -- few on a hub whose authors it signs for itself (their signatures are in event_sigs).
      DROP INDEX IF EXISTS events_by_envelope_sender;
      CREATE INDEX events_by_envelope_sender ON events(from_id, thread_id, sender_epoch, sender_seq) WHERE sig IS NOT NULL;
    `,
  },
  {
    version: 13,
    name: 'deliveries by sender',
    up: `
      -- The sender's view of its deliveries (the inbox tool shows it at every call) walked every
      -- event its sender ever posted to find the few that were targeted: it now reads its own
      -- deliveries through an index of their sender.
      ALTER TABLE deliveries ADD COLUMN sender_id TEXT;
      UPDATE deliveries SET sender_id = (SELECT from_id FROM events WHERE events.seq = deliveries.seq);
      CREATE INDEX deliveries_by_sender ON deliveries(sender_id, session_id, seq);
    `,
  },
  {
    version: 14,
    name: 'peer links',
    up: `
      -- A participant another hub of the roster hosts (src/peer): that hub's key and name. NULL: hosted here.
      ALTER TABLE participants ADD COLUMN hub_key TEXT;
      ALTER TABLE participants ADD COLUMN hub_name TEXT;
      -- An event taken from a linked hub is stored under this hub's thread of the same name; the
      -- thread id its author signed (the origin's) is kept here when it differs. NULL: thread_id was signed.
      ALTER TABLE events ADD COLUMN signed_thread TEXT;
      -- For each linked hub, the highest seq of this store it acknowledged as committed: the fan-out
      -- to it resumes after this (src/peer/event-stream.ts).
      CREATE TABLE peer_cursors (
        peer_key TEXT PRIMARY KEY,
        seq INTEGER NOT NULL
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 15,
    name: 'history sync',
    up: `
      -- The sender_seq of the author's previous event of a kind that crosses to linked hubs, in the
      -- same thread and epoch (NULL: none, or not known). Its author's hub says it; a hub that holds
      -- an event but not the one before it has a gap in that author's history (src/hub/history-gaps.ts).
      ALTER TABLE events ADD COLUMN prev_seq INTEGER;
      -- The last of those seqs given to each (author, thread): the next event's prev_seq.
      ALTER TABLE sender_seqs ADD COLUMN crossing_seq INTEGER;
      -- DMs to a participant of another hub whose TTL ran out before that hub took them: never sent
      -- after, and shown expired to their sender (src/hub/delivery-view.ts).
      CREATE TABLE expired_sends (
        seq INTEGER PRIMARY KEY,
        expired_at INTEGER NOT NULL
      );
    `,
  },
];
