import fs from 'node:fs';
import path from 'node:path';
import { ParleyError, toParleyError } from '../errors/parley-error.js';
import { readRosterFile, writeRosterFile } from './roster-file.js';
import type { Roster } from './roster.js';

/**
 * A roster draft: a version being edited and signed, kept in its own file
 * beside the roster file (`<home>/roster.draft.json` beside
 * `<home>/roster.json`). The roster file holds only a signed version, the one
 * in force; a hub never loads the draft, so an edit left unsigned never stops
 * a hub from starting. `parley roster sign` moves a draft into the roster
 * file once it is signed; `parley roster discard` drops it.
 */

/** The draft file beside `rosterFile`: `roster.json` → `roster.draft.json`. */
export function draftFileOf(rosterFile: string): string {
  const { dir, name, ext } = path.parse(rosterFile);
  return path.join(dir, ext === '.json' ? `${name}.draft.json` : `${name}${ext}.draft.json`);
}

/** The draft in `draftFile`, checked for shape; undefined when there is none. */
export function readDraftFile(draftFile: string): Roster | undefined {
  if (!fs.existsSync(draftFile)) return undefined;
  return readRosterFile(draftFile);
}

export const writeDraftFile = writeRosterFile;

/** Removes the draft file; whether there was one. */
export function removeDraftFile(draftFile: string): boolean {
  try {
    fs.rmSync(draftFile);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw toParleyError(error, `the roster draft ${draftFile}`);
  }
}

/**
 * Whether the roster file's content is a draft rather than a version in
 * force: unsigned (it was never in force anywhere) and newer than the version
 * in force. Earlier versions of Parley wrote drafts into the roster file.
 * A signed file is never taken for a draft: a newer signed version that the
 * hub cannot accept may be one that removed members, and must not be set aside.
 */
export function isDraftInRosterFile(onFile: Roster, inForce: Roster | undefined): boolean {
  return onFile.signatures.length === 0 && (inForce === undefined || onFile.version > inForce.version);
}

/**
 * Sets a draft found in the roster file aside: moves it to the draft file
 * (unless a draft is already there, which is kept and wins) and writes the
 * version in force back to the roster file. `moved`: whether the file moved.
 */
export function setDraftAside(rosterFile: string, inForce: Roster | undefined): { moved: boolean; draftFile: string } {
  const draftFile = draftFileOf(rosterFile);
  if (fs.existsSync(draftFile)) return { moved: false, draftFile };
  try {
    fs.renameSync(rosterFile, draftFile);
  } catch (error) {
    throw toParleyError(error, `moving the roster draft ${rosterFile} to ${draftFile}`);
  }
  if (inForce !== undefined) writeRosterFile(rosterFile, inForce);
  return { moved: true, draftFile };
}

/** "unsigned" or "signed by N" (a draft's signatures, which do not make it in force). */
function signedState(draft: Roster): string {
  const n = draft.signatures.length;
  return n === 0 ? 'unsigned' : `signed by ${n} key${n === 1 ? '' : 's'}`;
}

/** The one line that says a draft is pending and what to do: for serve, doctor and roster show. */
export function pendingDraftNotice(draft: Roster, draftFile: string, inForce: Pick<Roster, 'org_id' | 'version'> | undefined): string {
  const held = inForce === undefined ? 'no roster is in force' : `roster ${inForce.org_id} v${inForce.version} stays in force`;
  if (inForce !== undefined && draft.version <= inForce.version) {
    return `roster draft ${draft.org_id} v${draft.version} at ${draftFile} is stale (${held}, newer than it): drop it with "parley roster discard"`;
  }
  return `roster draft ${draft.org_id} v${draft.version} at ${draftFile} is not in force (${signedState(draft)}; ${held}): sign it with "parley roster sign --as HANDLE" (or "parley roster sign" with the hub key), or drop it with "parley roster discard"`;
}

/** A draft file that cannot be read: what to say, as a ParleyError naming it. */
export function unreadableDraft(draftFile: string, error: unknown): ParleyError {
  const reason = error instanceof Error ? error.message : String(error);
  return new ParleyError('ROSTER_INVALID', `The roster draft ${draftFile} cannot be used (${reason}); fix it, or drop it with "parley roster discard".`, {
    field: 'draft',
    details: { path: draftFile },
    cause: error,
  });
}

/** The notice for the draft beside `rosterFile`, when there is one (one that cannot be read says so). */
export function pendingDraftNoticeOf(rosterFile: string, inForce: Pick<Roster, 'org_id' | 'version'> | undefined): string | undefined {
  const draftFile = draftFileOf(rosterFile);
  let draft: Roster | undefined;
  try {
    draft = readDraftFile(draftFile);
  } catch (error) {
    return unreadableDraft(draftFile, error).message;
  }
  return draft && pendingDraftNotice(draft, draftFile, inForce);
}
