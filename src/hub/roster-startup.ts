import fs from 'node:fs';
import { ParleyError } from '../errors/parley-error.js';
import type { Roster } from '../schema/roster.js';
import { isDraftInRosterFile, setDraftAside } from '../trust/roster-draft.js';
import { readRosterFile } from '../trust/roster-file.js';
import { rosterSigningBytes } from '../trust/roster.js';
import type { Logger } from '../util/logger.js';
import type { RosterBook } from './roster-book.js';

/**
 * Which roster is in force when a hub opens: the newest of the chain it
 * accepted before (the store) and of the roster file. A newer file is
 * accepted like any update (admin-signed, same org); a file that is older, or
 * of the same version but different, is refused: a rollback never takes
 * effect.
 *
 * A refused or missing file does not stop a hub that already has a roster:
 * it keeps the stored one (never a downgrade, and no one is locked out) and
 * logs why the file was not used. A hub with no stored roster, whose
 * configured file cannot be accepted, does not start: running in local mode
 * instead would silently give every human admin and every agent operator.
 * The default file (`<home>/roster.json`) missing is just local mode.
 *
 * An unsigned roster in the file, newer than the version held, is a draft
 * (earlier versions of Parley wrote drafts there): it was never in force, so
 * it is set aside as the draft file (src/trust/roster-draft.ts) and the hub
 * starts on what it holds. A hub holding none, whose configured file is such
 * a draft, still does not start: the draft has to be signed first.
 */
export async function loadRosterAtStart(
  rosters: RosterBook,
  place: { file: string; configured: boolean },
  now: number,
  logger: Logger,
): Promise<Roster | undefined> {
  const stored = rosters.current();
  if (!place.configured && !fs.existsSync(place.file)) return stored;
  const refuse = (error: unknown): Roster | undefined => {
    if (stored === undefined) throw error;
    logger.error(`roster file not used; roster ${stored.org_id} v${stored.version} (from the store) stays in force`, { file: place.file, error });
    return stored;
  };
  let file: Roster;
  try {
    file = readRosterFile(place.file);
  } catch (error) {
    return refuse(error);
  }
  if (isDraftInRosterFile(file, stored) && (stored !== undefined || !place.configured)) {
    const fields = { file: place.file, version: file.version, inForce: stored?.version ?? null };
    try {
      const { moved, draftFile } = setDraftAside(place.file, stored);
      if (moved) logger.warn(`the roster file held an unsigned draft (v${file.version}), never in force: moved it to ${draftFile}`, fields);
      else logger.warn(`the roster file holds an unsigned draft (v${file.version}), not used: another draft is already at ${draftFile}`, fields);
    } catch (error) {
      logger.warn(`the roster file holds an unsigned draft (v${file.version}), not used; it could not be moved aside`, { ...fields, error });
    }
    return stored;
  }
  if (stored !== undefined && file.version === stored.version) {
    if (Buffer.compare(rosterSigningBytes(file), rosterSigningBytes(stored)) === 0) return stored;
    return refuse(
      new ParleyError(
        'ROSTER_ROLLBACK',
        `${place.file}: version ${file.version} differs from version ${stored.version} already in force; a changed roster needs a higher version ("parley roster add|remove|set-role" bump it), signed by an admin.`,
        { field: 'version', details: { version: file.version, current: stored.version, path: place.file } },
      ),
    );
  }
  try {
    return await rosters.accept(file, now);
  } catch (error) {
    const named = error instanceof ParleyError ? new ParleyError(error.code, `${place.file}: ${error.message}`, { ...(error.field === undefined ? {} : { field: error.field }), details: { ...error.details, path: place.file }, cause: error }) : error;
    // A newer version that cannot be accepted stops the start: running on the older one held here
    // could bring back members the newer one removed (a store restored from a backup, say).
    if (stored !== undefined && file.version > stored.version) {
      throw new ParleyError(
        'ROSTER_INVALID',
        `${place.file} holds roster version ${file.version}, newer than version ${stored.version} in force here, but it cannot be accepted (${named instanceof Error ? named.message : String(named)}). Have an admin of version ${stored.version} sign it, or put a version this hub can accept in place; the hub does not start on an older roster than its file.`,
        { field: 'version', details: { version: file.version, current: stored.version, path: place.file } },
      );
    }
    return refuse(named);
  }
}
