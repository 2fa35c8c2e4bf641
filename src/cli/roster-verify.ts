import path from 'node:path';
import { ParleyError, isParleyError } from '../errors/parley-error.js';
import { readRosterFile } from '../trust/roster-file.js';
import { acceptRoster, parseRoster, rosterSigningBytes } from '../trust/roster.js';
import type { CommandArgs, CommandRun } from './command.js';
import type { ROSTER_OPTIONS } from './command-options.js';
import { noExtra, placeOf, rosterHelp, say } from './roster-args.js';

/**
 * `parley roster verify [FILE]`: a roster checked offline (its shape and
 * every signature, by an admin of the roster itself), and against the roster
 * in force on the running hub.
 */
export const rosterVerify: CommandRun<typeof ROSTER_OPTIONS> = { help: rosterHelp('verify'), run: verifyRoster };

async function verifyRoster({ values, positionals }: CommandArgs<typeof ROSTER_OPTIONS>): Promise<number> {
  noExtra(positionals, 1, 'parley roster verify [FILE]');
  const place = placeOf(values);
  const file = positionals[0] === undefined ? ((await place.draft())?.file ?? place.file) : path.resolve(positionals[0]);
  const roster = readRosterFile(file);
  const hub = await place.hub();
  const current = hub?.roster ? parseRoster(hub.roster) : undefined;
  const checks: string[] = [];
  try {
    // On its own: signed, every signature valid and by an admin of the roster itself.
    acceptRoster(undefined, roster);
    checks.push(`signatures: ${roster.signatures.length} valid, by admins of v${roster.version}`);
    if (current) {
      if (current.org_id === roster.org_id && current.version === roster.version) {
        if (Buffer.compare(rosterSigningBytes(roster), rosterSigningBytes(current)) !== 0) {
          throw new ParleyError('ROSTER_ROLLBACK', `${file}: version ${roster.version} differs from version ${current.version} in force; a changed roster needs a higher version.`, { field: 'version' });
        }
        checks.push(`the running hub has this version in force (${current.org_id} v${current.version})`);
      } else {
        acceptRoster(current, roster);
        checks.push(`the running hub (v${current.version}) would accept it`);
      }
    }
  } catch (error) {
    if (!isParleyError(error)) throw error;
    say(values, { ok: false, file, code: error.code, field: error.field ?? null, message: error.message }, `FAIL  ${file}: ${error.message}`);
    return 1;
  }
  say(values, { ok: true, file, org_id: roster.org_id, version: roster.version, checks }, [`ok  roster ${roster.org_id} v${roster.version} (${file})`, ...checks.map((c) => `  ${c}`)].join('\n'));
  return 0;
}
