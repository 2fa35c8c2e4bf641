import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ADMIN_TOKEN_FILENAME } from '../config/defaults.js';
import { writeFileAtomically } from '../util/atomic-write.js';

/**
 * The hub's admin credential for the same OS user: a fresh random token
 * written at each start to `<home>/admin.token`, readable only by its owner
 * (0600). The `parley` CLI reads it to register participants and rotate their
 * tokens; other local users cannot. Only its hash stays in memory.
 */
export const ADMIN_TOKEN_PREFIX = 'pa_';

export interface AdminCredential {
  file: string;
  verify(token: string): boolean;
}

export function createAdminCredential(home: string): AdminCredential {
  const token = ADMIN_TOKEN_PREFIX + crypto.randomBytes(32).toString('base64url');
  const file = path.join(home, ADMIN_TOKEN_FILENAME);
  writeFileAtomically(file, `${token}\n`, 0o600);
  const expected = crypto.createHash('sha256').update(token).digest();
  return {
    file,
    verify(candidate: string): boolean {
      if (!candidate.startsWith(ADMIN_TOKEN_PREFIX)) return false;
      const actual = crypto.createHash('sha256').update(candidate).digest();
      return crypto.timingSafeEqual(actual, expected);
    },
  };
}

/** The admin token a running hub wrote into the home, or undefined when there is none. */
export function readAdminToken(home: string): string | undefined {
  try {
    return fs.readFileSync(path.join(home, ADMIN_TOKEN_FILENAME), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
