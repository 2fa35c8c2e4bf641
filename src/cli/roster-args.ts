import { resolveHome } from '../config/load.js';
import { ParleyError, isParleyError } from '../errors/parley-error.js';
import { AccessSchema, type Access } from '../schema/access.js';
import type { Roster } from '../schema/roster.js';
import { acceptRoster } from '../trust/roster.js';
import { terminalJson, terminalText } from './terminal-text.js';
import { RosterPlace } from './roster-place.js';

/** What every `parley roster` command shares: its help, where it works, and how it prints. */

export const COMMON = `Options of every roster command:
  --roster FILE   The roster file (wins over PARLEY_ROSTER and trust.rosterPath;
                  default <home>/roster.json). A relative trust.rosterPath or
                  PARLEY_ROSTER is relative to the home. The draft is beside
                  it (roster.json → roster.draft.json).
  --home DIR      The home (default $PARLEY_HOME or ~/.parley)
  --config FILE   Config file (default <home>/config.json)
  --url URL       The hub (default: PARLEY_URL, else the hub running on the home)
`;

export const HELPS = {
  init: `Usage: parley roster init --org ID [options]

Makes version 1 of the roster: this home's hub key as admin, plus, when a hub
runs on the home, each of its participants with the access it has now (in
local mode humans are admin and agents operator unless changed). Signed with
the hub key, written to the roster file and handed to the running hub.
`,
  add: `Usage: parley roster add (ed25519:KEY | @HANDLE) --role ROLE [--archive] [options]
       parley roster add --from FILE [--role ROLE] [options]

Adds a member to the roster draft (roster.draft.json beside the roster file:
one version above the roster in force, unsigned); "parley roster sign" signs
it and puts it in force. ROLE is observer, member, operator or admin. @HANDLE
is a participant of the running hub, or with none running, of this home
("parley whoami --key" prints a participant's key). --archive marks a member
that keeps history past the channels' retention.

--from FILE adds another hub, from the file "parley peer self --json" wrote
there: the hub as a hub member (with --role, member by default; only hub
members link with each other) and every participant it hosts (humans admin,
agents operator, as in local mode). Keys already listed keep their entry.
`,
  remove: `Usage: parley roster remove (ed25519:KEY | @HANDLE) [options]

Removes a member, in the roster draft (sign it with "parley roster sign").
`,
  'set-role': `Usage: parley roster set-role (ed25519:KEY | @HANDLE) ROLE [options]

Changes a member's role (observer, member, operator, admin), in the roster
draft (sign it with "parley roster sign"). In local mode (no roster file and
no roster in force), sets the participant's access on the running hub
instead, at once.
`,
  sign: `Usage: parley roster sign [--as HANDLE] [--confirm] [options]

Signs the roster draft with this home's hub key, or with --as HANDLE the key
this home keeps for that participant; only an admin of the version in force
(of the draft itself for a first roster) may sign. With a hub running, hands
it to the hub, which puts it in force if admins of the version in force
signed it; the draft then becomes the roster file. With no hub running, the
signed draft becomes the roster file at once, and "parley serve" loads it.
A version that leaves out members who hold live sessions on the hub is
refused, naming them; --confirm puts it in force anyway (they are refused
from their next call). With no draft, signs the roster file itself.
`,
  discard: `Usage: parley roster discard [options]

Drops the roster draft (the edits not yet signed); the roster in force stays
as it is. With no draft, says so and changes nothing.
`,
  show: `Usage: parley roster show [--json] [options]

The roster file: org, version, members (with handles the hub knows), roles,
archive marks, signatures, and whether it is the roster in force; then the
pending draft, if any, and what it changes. Or the local-mode line when
there is no roster.
`,
  verify: `Usage: parley roster verify [FILE] [options]

Checks a roster file (default: the draft when one is pending, else the roster
file) offline: its shape and every signature, by an admin of the roster
itself; and, when a hub runs with a roster, whether the hub would take it
(same org, newer, signed by admins of the version in force). Exit 0 when it
holds, 1 when it does not.
`,
  import: `Usage: parley roster import FILE [--confirm] [options]

Hands a signed roster (another hub's roster.json, say) to this home's hub. A
hub holding no roster takes it if one of its own admins signed it (the
operator's act: this puts the hub out of local mode); a hub holding one takes
it only if it is newer, of the same org, and signed by admins of the version
in force. With no hub running, the roster file gets it on the same terms and
"parley serve" puts it in force. --confirm: leave out members who are using
the hub now.
`,
} as const;

export type Verb = keyof typeof HELPS;

/** A roster command's help: its own, then the options every roster command takes. */
export const rosterHelp = (verb: Verb): string => `${HELPS[verb]}\n${COMMON}`;

export function placeOf(values: { home?: string | undefined; roster?: string | undefined; config?: string | undefined; url?: string | undefined }): RosterPlace {
  return new RosterPlace(resolveHome(values.home), values);
}

export function roleOf(value: string | undefined, flag: string): Access {
  const parsed = AccessSchema.safeParse(value);
  if (!parsed.success) {
    throw new ParleyError('INVALID_INPUT', `Invalid ${flag}: ${value === undefined ? 'missing' : `"${value}" is not a role`}; give observer, member, operator or admin.`, { field: flag });
  }
  return parsed.data;
}

export function noExtra(positionals: string[], from: number, usage: string): void {
  if (positionals.length > from) throw new ParleyError('INVALID_INPUT', `Unexpected argument "${positionals[from]}": ${usage}.`, { field: 'arguments' });
}

export const nowStamp = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

/** What a roster command prints: names and notes in a roster come from others (a peer's `peer self` file), so made safe for a terminal. */
export function say(values: { json?: boolean | undefined }, json: unknown, text: string): void {
  process.stdout.write(values.json ? `${terminalJson(json)}\n` : `${terminalText(text, 'lines')}\n`);
}

/**
 * With no hub running, whether a hub starting now would put `roster` in force
 * over `inForce`: a refusal keeps the hub's code and field, and says what was
 * not done and that `unchanged` stays as it was.
 */
export function assertAcceptable(inForce: Roster | undefined, roster: Roster, notDone: string, unchanged: string): void {
  try {
    acceptRoster(inForce, roster);
  } catch (error) {
    if (!isParleyError(error)) throw error;
    throw new ParleyError(error.code, `${notDone}: ${error.message.replace(/\.$/, '')}; ${unchanged} is unchanged.`, {
      ...(error.field === undefined ? {} : { field: error.field }),
      details: error.details,
      cause: error,
    });
  }
}
