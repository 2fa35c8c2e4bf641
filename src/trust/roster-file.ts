/**
 * The roster as a JSON file (src/schema/roster.ts), read and written whole. The
 * file is the document, not a trust decision: reading it only checks its shape;
 * acceptRoster decides whether it may be in force.
 */

import fs from 'node:fs';
import path from 'node:path';
import { ParleyError, toParleyError } from '../errors/parley-error.js';
import { writeFileAtomically } from '../util/atomic-write.js';
import { parseRoster, type Roster } from './roster.js';

const PATH_SETTINGS = 'trust.rosterPath, PARLEY_ROSTER or --roster';

/** The roster in `file`, validated; a missing, unreadable or malformed file is a ROSTER_INVALID naming the file (and the field). */
export function readRosterFile(file: string): Roster {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'there is no such file' : code === 'EISDIR' ? 'it is a folder' : `it cannot be read (${code ?? String(error)})`;
    throw new ParleyError('ROSTER_INVALID', `Cannot read the roster ${file}: ${reason}. Check ${PATH_SETTINGS}, or create one with "parley roster init".`, {
      details: { path: file },
      cause: error,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ParleyError('ROSTER_INVALID', `The roster ${file} is not valid JSON (${(error as Error).message}). Fix the file or write it again with "parley roster".`, {
      details: { path: file },
      cause: error,
    });
  }
  try {
    return parseRoster(json);
  } catch (error) {
    if (error instanceof ParleyError) {
      throw new ParleyError(error.code, `${file}: ${error.message}`, {
        ...(error.field === undefined ? {} : { field: error.field }),
        details: { ...error.details, path: file },
        cause: error,
      });
    }
    throw error;
  }
}

/** The JSON text of a roster, fields in their documented order, one trailing newline. */
export function rosterFileText(roster: Roster): string {
  const ordered = {
    org_id: roster.org_id,
    version: roster.version,
    timestamp: roster.timestamp,
    members: roster.members.map((m) => ({ pubkey: m.pubkey, role: m.role, ...(m.archive === undefined ? {} : { archive: m.archive }), ...(m.kind === undefined ? {} : { kind: m.kind }) })),
    signatures: roster.signatures.map((s) => ({ pubkey: s.pubkey, sig: s.sig })),
  };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

/**
 * Writes the roster to `file` atomically (a temp file beside it, flushed,
 * then renamed over it), so a reader never sees half a roster. The roster is
 * public: the file keeps its mode, or gets 0644.
 */
export function writeRosterFile(file: string, roster: Roster): void {
  const text = rosterFileText(parseRoster(roster));
  try {
    writeFileAtomically(file, text, fs.existsSync(file) ? fs.statSync(file).mode & 0o777 : 0o644);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new ParleyError('INVALID_INPUT', `Cannot write the roster ${file}: its folder does not exist. Create the folder or choose another path (${PATH_SETTINGS}).`, {
        field: 'rosterPath',
        details: { path: file },
        cause: error,
      });
    }
    throw toParleyError(error, `the roster ${file}`);
  }
}

/** The roster file when nothing names one: beside the store, in the home. */
export const DEFAULT_ROSTER_FILENAME = 'roster.json';

/**
 * Where this home's roster file is: `trust.rosterPath` as the config loader
 * resolved it (the config file, then PARLEY_ROSTER, then --roster: the later
 * wins), a relative path being relative to the home (the hub may run from any
 * folder); or, when none is set, `<home>/roster.json`. `configured` says
 * whether a setting named it: a named file that is missing is an error, the
 * default one missing just means local mode.
 */
export function rosterFileOf(rosterPath: string, home: string): { file: string; configured: boolean } {
  if (rosterPath.trim() === '') return { file: path.join(home, DEFAULT_ROSTER_FILENAME), configured: false };
  return { file: path.resolve(home, rosterPath), configured: true };
}
