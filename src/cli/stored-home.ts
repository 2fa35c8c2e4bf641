import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { STORE_FILENAME } from '../config/defaults.js';
import { ParleyError } from '../errors/parley-error.js';
import type { Roster } from '../schema/roster.js';
import { DirectoryStore } from '../store/directory-store.js';
import { RosterStore } from '../store/roster-store.js';
import { formatPublicKey } from '../trust/node-id.js';
import { parseRoster } from '../trust/roster.js';

/**
 * What the roster commands read from a home's store when no hub runs on it:
 * the newest roster the hub accepted, and its participants' handles and keys.
 * Opened read-only, so it never changes the store a hub will open; a home
 * with no store yet (no hub ever ran) holds neither.
 */
export interface StoredHome {
  /** The newest roster version the store holds; undefined when it holds none. */
  roster: Roster | undefined;
  participants: Array<{ handle: string; pubkey: string }>;
}

export function readStoredHome(home: string): StoredHome {
  const file = path.join(home, STORE_FILENAME);
  if (!fs.existsSync(file)) return { roster: undefined, participants: [] };
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const roster = new RosterStore(db).all().map((doc) => parseRoster(doc)).at(-1);
    const participants = new DirectoryStore(db).allParticipants().map((row) => ({ handle: row.handle, pubkey: formatPublicKey(row.public_key) }));
    return { roster, participants };
  } catch (error) {
    throw new ParleyError('STORAGE_UNAVAILABLE', `Cannot read the store ${file} (${(error as Error).message}); "parley doctor" checks it.`, { details: { path: file }, cause: error });
  } finally {
    db?.close();
  }
}
