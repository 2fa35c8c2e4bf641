import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ParleyError } from '../../src/errors/parley-error.js';
import { openHub } from '../../src/hub/hub.js';
import { createSilentLogger } from '../../src/util/logger.js';
import { MIGRATIONS, migrate } from '../../src/store/migrations.js';
import { openStore } from '../../src/store/store.js';
import { hubKeyPathOf, participantKeyPathOf, readKeyFile, writeKeyFile } from '../../src/trust/key-files.js';
import { participantIdOf, rawPublicKeyOf } from '../../src/trust/node-id.js';
import { ProfileSchema } from '../../src/schema/participant.js';
import { tempHomesRemovedAfterEach } from '../helpers/hub.js';

const scratch = tempHomesRemovedAfterEach('parley-keys-');

const modeOf = (file: string): number => fs.statSync(file).mode & 0o777;

/** The 32-byte seed of an Ed25519 private key: what must never be found in a store. */
function seedOf(key: crypto.KeyObject): Buffer {
  const der = key.export({ type: 'pkcs8', format: 'der' });
  return der.subarray(der.length - 32);
}

/** Every byte the store keeps on disk: the database, its write-ahead log and journal. */
function storeBytes(home: string): Buffer {
  const files = ['parley.db', 'parley.db-wal', 'parley.db-journal'].map((name) => path.join(home, name)).filter((file) => fs.existsSync(file));
  return Buffer.concat(files.map((file) => fs.readFileSync(file)));
}

async function caught(run: () => unknown): Promise<ParleyError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ParleyError) return error;
    throw error;
  }
  throw new Error('expected a ParleyError');
}

describe('key files', () => {
  it('keys - the hub makes its own key and each participant\'s at join, in files 0600 under keys/ (0700), and the store never holds them', async () => {
    const home = scratch();
    const hub = await openHub({ home, logger: createSilentLogger() });
    const alice = await hub.join({ handle: 'alice' });
    await alice.post({ thread: 'general', text: 'hello' });
    const id = (await alice.whoami()).participant.id;
    await hub.close();

    expect(modeOf(path.join(home, 'keys'))).toBe(0o700);
    expect(modeOf(path.join(home, 'keys', 'participants'))).toBe(0o700);
    expect(modeOf(hubKeyPathOf(home))).toBe(0o600);
    const keyFile = participantKeyPathOf(home, id);
    expect(modeOf(keyFile)).toBe(0o600);
    const key = readKeyFile(keyFile);
    // The file's key is the participant's: its public half hashes to the id.
    expect(participantIdOf(rawPublicKeyOf(key))).toBe(id);
    expect(fs.readFileSync(keyFile, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);

    const bytes = storeBytes(home);
    expect(bytes.length).toBeGreaterThan(0);
    expect(bytes.includes(seedOf(key))).toBe(false);
    expect(bytes.includes(seedOf(readKeyFile(hubKeyPathOf(home))))).toBe(false);
    expect(bytes.includes(Buffer.from('PRIVATE KEY'))).toBe(false);
    const columns = (new Database(path.join(home, 'parley.db'), { readonly: true }).prepare('PRAGMA table_info(participants)').all() as Array<{ name: string }>).map((c) => c.name);
    expect(columns).not.toContain('secret_key');
  });

  it('keys - the hub keeps its key across restarts, and a key file others can read stops it, saying to chmod 600', async () => {
    const home = scratch();
    const first = await openHub({ home, logger: createSilentLogger() });
    await first.close();
    const before = fs.readFileSync(hubKeyPathOf(home), 'utf8');
    const again = await openHub({ home, logger: createSilentLogger() });
    await again.close();
    expect(fs.readFileSync(hubKeyPathOf(home), 'utf8')).toBe(before);

    fs.chmodSync(hubKeyPathOf(home), 0o644);
    const refused = await caught(() => openHub({ home, logger: createSilentLogger() }));
    expect(refused.code).toBe('KEY_FILE');
    expect(refused.message).toContain(`chmod 600 ${hubKeyPathOf(home)}`);
    // The refused start left the key as it was.
    expect(fs.readFileSync(hubKeyPathOf(home), 'utf8')).toBe(before);
  });

  it('keys - a key file is never overwritten with another key; writing the same key again is a no-op', async () => {
    const file = path.join(scratch(), 'keys', 'hub.key');
    const key = crypto.generateKeyPairSync('ed25519').privateKey;
    writeKeyFile(file, key);
    writeKeyFile(file, key);
    expect(rawPublicKeyOf(readKeyFile(file)).equals(rawPublicKeyOf(key))).toBe(true);
    const other = crypto.generateKeyPairSync('ed25519').privateKey;
    const refused = await caught(() => writeKeyFile(file, other));
    expect(refused.code).toBe('KEY_FILE');
    expect(rawPublicKeyOf(readKeyFile(file)).equals(rawPublicKeyOf(key))).toBe(true);
    // No temporary file is left beside it.
    expect(fs.readdirSync(path.dirname(file))).toEqual(['hub.key']);
  });

  it('keys - a missing or non-key file is named, with what to do', async () => {
    const dir = scratch();
    const missing = await caught(() => readKeyFile(path.join(dir, 'nope.key')));
    expect(missing.code).toBe('KEY_FILE');
    expect(missing.message).toMatch(/is missing/);
    const junk = path.join(dir, 'junk.key');
    fs.writeFileSync(junk, 'not a key', { mode: 0o600 });
    const bad = await caught(() => readKeyFile(junk));
    expect(bad.code).toBe('KEY_FILE');
    expect(bad.message).toContain(junk);
  });

  it('keys - a store from before key files gives each private key its own file and keeps none of their bytes', async () => {
    const home = scratch();
    const file = path.join(home, 'parley.db');
    const old = new Database(file);
    old.pragma('journal_mode = WAL');
    migrate(old, MIGRATIONS.filter((m) => m.version <= 3));
    // Enough keys to fill pages that dropping the column frees: without the file's rewrite their bytes would stay.
    const keys = Array.from({ length: 300 }, () => crypto.generateKeyPairSync('ed25519').privateKey);
    const ids = keys.map((key) => participantIdOf(rawPublicKeyOf(key)));
    const insert = old.prepare('INSERT INTO participants (id, handle, kind, profile, public_key, secret_key, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    keys.forEach((key, i) => insert.run(ids[i], `p${i}`, 'agent', JSON.stringify(ProfileSchema.parse({ kind: 'agent' })), rawPublicKeyOf(key), key.export({ type: 'pkcs8', format: 'der' }), 1000 + i));
    old.close();
    expect(storeBytes(home).includes(seedOf(keys[0]!))).toBe(true);

    const store = openStore({ file });
    const columns = (store.db.prepare('PRAGMA table_info(participants)').all() as Array<{ name: string }>).map((c) => c.name);
    expect(columns).not.toContain('secret_key');
    expect(store.directory.allParticipants().map((p) => p.id).sort()).toEqual([...ids].sort());
    store.close();

    const after = storeBytes(home);
    keys.forEach((key, i) => {
      const keyFile = participantKeyPathOf(home, ids[i]!);
      expect(modeOf(keyFile)).toBe(0o600);
      expect(rawPublicKeyOf(readKeyFile(keyFile)).equals(rawPublicKeyOf(key))).toBe(true);
      expect(after.includes(seedOf(key)), `participant ${i}'s key bytes`).toBe(false);
    });
    // The hub opens the migrated home and its participants are still there.
    const hub = await openHub({ home, logger: createSilentLogger() });
    expect((await (await hub.join({ handle: 'p0' })).whoami()).participant.id).toBe(ids[0]);
    await hub.close();
  });
});
