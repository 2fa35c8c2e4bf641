import path from 'node:path';
import { ParleyError } from '../errors/parley-error.js';
import { readRosterFile, writeRosterFile } from '../trust/roster-file.js';
import type { CommandArgs, CommandRun } from './command.js';
import type { ROSTER_IMPORT_OPTIONS } from './command-options.js';
import { assertAcceptable, noExtra, placeOf, rosterHelp, say } from './roster-args.js';
import { push } from './roster-place.js';

/**
 * `parley roster import FILE`: a signed roster handed to this home's hub by
 * its operator, on the hub's own terms (a first roster signed by one of its
 * admins; else newer, same org, signed by admins of the version in force).
 * With no hub running, the roster file takes it on the same terms.
 */
export const rosterImport: CommandRun<typeof ROSTER_IMPORT_OPTIONS> = { help: rosterHelp('import'), run: importRoster };

async function importRoster({ values, positionals }: CommandArgs<typeof ROSTER_IMPORT_OPTIONS>): Promise<number> {
  const usage = 'parley roster import FILE [--confirm]';
  const given = positionals[0];
  if (given === undefined) throw new ParleyError('INVALID_INPUT', `Name the roster file to import: ${usage}.`, { field: 'file' });
  noExtra(positionals, 1, usage);
  const file = path.resolve(given);
  const roster = readRosterFile(file);
  const place = placeOf(values);
  const what = `roster ${roster.org_id} v${roster.version} from ${file}`;
  if (await place.hub()) {
    const pushed = (await push(place, roster, values.confirm === true))!;
    say(values, { file: place.file, roster, pushed }, `${what}: ${pushed.message}`);
    return pushed.accepted ? 0 : 1;
  }
  const inForce = await place.inForce();
  assertAcceptable(inForce, roster, 'Not imported', place.file);
  writeRosterFile(place.file, roster);
  say(values, { file: place.file, roster, pushed: null }, `${what}: no hub runs on this home; ${place.file} holds it now and "parley serve" puts it in force`);
  return 0;
}
