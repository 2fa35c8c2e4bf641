import crypto, { type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ParleyError } from '../errors/parley-error.js';

/**
 * Private keys live in files under the home, never in the store:
 *
 *   <home>/keys/                          0700
 *   <home>/keys/hub.key                   this hub's key (PKCS8 PEM, 0600)
 *   <home>/keys/participants/<id>.key     keys of participants registered here (custodial)
 *
 * A participant's file is named by its id (a hash of its public key), so the
 * key of an event's author is found from the id alone. PEM is deliberate: the
 * redaction scanner recognises a pasted `BEGIN PRIVATE KEY` block. A key file
 * that others could read is refused rather than used: the key may be copied.
 */
export const KEYS_DIRNAME = 'keys';
export const PARTICIPANT_KEYS_DIRNAME = 'participants';
export const HUB_KEY_FILENAME = 'hub.key';
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

export function keysDirOf(home: string): string {
  return path.join(home, KEYS_DIRNAME);
}

export function hubKeyPathOf(home: string): string {
  return path.join(keysDirOf(home), HUB_KEY_FILENAME);
}

export function participantKeyPathOf(home: string, participantId: string): string {
  if (!/^p_[a-z2-7]{26}$/.test(participantId)) {
    throw new ParleyError('INVALID_INPUT', `"${participantId}" is not a participant id (p_ and 26 base32 letters).`, { field: 'participantId' });
  }
  return path.join(keysDirOf(home), PARTICIPANT_KEYS_DIRNAME, `${participantId}.key`);
}

/** A new Ed25519 private key. */
export function generatePrivateKey(): KeyObject {
  return crypto.generateKeyPairSync('ed25519').privateKey;
}

/**
 * Writes `privateKey` to `file`, 0600, atomically (a temporary file, flushed,
 * then renamed), so a crash leaves either no key file or a whole one.
 * Refuses to replace an existing file that holds a different key.
 */
export function writeKeyFile(file: string, privateKey: KeyObject): void {
  const pem = pemOf(privateKey);
  if (fs.existsSync(file)) {
    if (pemOf(readKeyFile(file)) === pem) return;
    throw new ParleyError('KEY_FILE', `The key file ${file} already holds a different key; Parley never overwrites a key. Move it aside if it is stale.`, {
      field: 'keyFile',
    });
  }
  ensurePrivateDir(path.dirname(file));
  const temporary = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  const fd = fs.openSync(temporary, 'wx', FILE_MODE);
  try {
    fs.writeSync(fd, pem);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  // A link, not a rename: it fails if another process wrote the key first, where a rename would replace it.
  try {
    fs.linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    if (pemOf(readKeyFile(file)) !== pem) {
      throw new ParleyError('KEY_FILE', `The key file ${file} was just written by another process with a different key; use that one (run the command again).`, { field: 'keyFile' });
    }
  } finally {
    fs.rmSync(temporary, { force: true });
  }
  syncDir(path.dirname(file));
}

/** Reads a private key file; refuses one that group or others may read or write. */
export function readKeyFile(file: string): KeyObject {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ParleyError('KEY_FILE', `The key file ${file} is missing. Restore it from a backup; without it, nothing can be signed for this key.`, { field: 'keyFile' });
    }
    throw error;
  }
  if (!stat.isFile()) throw new ParleyError('KEY_FILE', `The key file ${file} is not a regular file.`, { field: 'keyFile' });
  if ((stat.mode & 0o077) !== 0) {
    throw new ParleyError(
      'KEY_FILE',
      `The key file ${file} is readable by others (mode ${(stat.mode & 0o777).toString(8)}): run "chmod 600 ${file}", and make a new key if someone may have copied it.`,
      { field: 'keyFile' },
    );
  }
  let key: KeyObject;
  try {
    key = crypto.createPrivateKey(fs.readFileSync(file));
  } catch {
    throw new ParleyError('KEY_FILE', `The key file ${file} does not hold a PEM private key. Restore it from a backup.`, { field: 'keyFile' });
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new ParleyError('KEY_FILE', `The key file ${file} holds a ${key.asymmetricKeyType ?? 'unknown'} key; Parley keys are Ed25519.`, { field: 'keyFile' });
  }
  return key;
}

/** Reads the key at `file`, or makes one and writes it there (first use). Two processes doing so at once end with the same key. */
export function ensureKeyFile(file: string): { privateKey: KeyObject; created: boolean } {
  if (fs.existsSync(file)) return { privateKey: readKeyFile(file), created: false };
  const privateKey = generatePrivateKey();
  try {
    writeKeyFile(file, privateKey);
  } catch (error) {
    // Another process made it between the check and the write: use theirs.
    if (error instanceof ParleyError && error.code === 'KEY_FILE' && fs.existsSync(file)) return { privateKey: readKeyFile(file), created: false };
    throw error;
  }
  return { privateKey, created: true };
}

function pemOf(privateKey: KeyObject): string {
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** Creates a key directory 0700 (and `keys/` above `keys/participants`), tightening one that is looser. */
function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  const dirs = path.basename(dir) === PARTICIPANT_KEYS_DIRNAME ? [path.dirname(dir), dir] : [dir];
  for (const each of dirs) {
    if ((fs.statSync(each).mode & 0o077) !== 0) fs.chmodSync(each, DIR_MODE);
  }
}

/** Makes a rename durable: the directory entry is flushed too (not possible on every platform). */
function syncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Directories cannot be opened for fsync on some systems; the rename itself is still atomic.
  }
}
