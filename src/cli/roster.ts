import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, resolveHome } from '../config/load.js';
import { ParleyError, isParleyError } from '../errors/parley-error.js';
import type { TrustMode } from '../hub/access-resolver.js';
import { readAdminToken } from '../http/admin-token.js';
import { AccessSchema, type Access } from '../schema/access.js';
import type { Roster, RosterMember } from '../schema/roster.js';
import { makeHomePrivate } from '../store/private-home.js';
import { ensureKeyFile, hubKeyPathOf, participantKeyPathOf, readKeyFile } from '../trust/key-files.js';
import { formatPublicKey, parsePublicKey, participantIdOf, rawPublicKeyOf } from '../trust/node-id.js';
import { readRosterFile, rosterFileOf, writeRosterFile } from '../trust/roster-file.js';
import { acceptRoster, parseRoster, rosterSigningBytes, signRoster, verifyRosterSignature } from '../trust/roster.js';
import { trustSummary } from '../format/trust-summary.js';
import { callHub } from './hub-client.js';
import { givenHubUrl, liveHub, provenHubUrl } from './hub-address.js';

/**
 * `parley roster init|add|remove|set-role|sign|show|verify`: the signed
 * roster file of this home. Editing (add, remove, set-role) leaves an
 * unsigned draft one version above the signed roster it started from; `sign`
 * signs it and hands it to the running hub, which accepts it only if admins
 * of the version in force signed it. In local mode (no roster file, none in
 * force) `set-role` sets the hub's local access instead.
 */

const COMMON = `Options of every roster command:
  --roster FILE   The roster file (wins over PARLEY_ROSTER and trust.rosterPath;
                  default <home>/roster.json). A relative trust.rosterPath or
                  PARLEY_ROSTER is relative to the home.
  --home DIR      The home (default $PARLEY_HOME or ~/.parley)
  --config FILE   Config file (default <home>/config.json)
  --url URL       The hub (default: PARLEY_URL, else the hub running on the home)
`;

const HELPS = {
  init: `Usage: parley roster init --org ID [options]

Makes version 1 of the roster: this home's hub key as admin, plus, when a hub
runs on the home, each of its participants with the access it has now (in
local mode humans are admin and agents operator unless changed). Signed with
the hub key, written to the roster file and handed to the running hub.
`,
  add: `Usage: parley roster add (ed25519:KEY | @HANDLE) --role ROLE [--archive] [options]

Adds a member to the roster as a new unsigned draft (version +1, signatures
dropped); "parley roster sign" signs it and puts it in force. ROLE is
observer, member, operator or admin. @HANDLE is looked up on the running hub
("parley whoami --key" prints a participant's key). --archive marks a member
that keeps history past the channels' retention.
`,
  remove: `Usage: parley roster remove (ed25519:KEY | @HANDLE) [options]

Removes a member, as a new unsigned draft (sign it with "parley roster sign").
`,
  'set-role': `Usage: parley roster set-role (ed25519:KEY | @HANDLE) ROLE [options]

Changes a member's role (observer, member, operator, admin), as a new unsigned
draft (sign it with "parley roster sign"). In local mode (no roster file and
no roster in force), sets the participant's access on the running hub
instead, at once.
`,
  sign: `Usage: parley roster sign [--as HANDLE] [options]

Signs the roster file with this home's hub key, or with --as HANDLE the key
this hub keeps for that participant, then hands it to the running hub, which
puts it in force if admins of the version in force signed it.
`,
  show: `Usage: parley roster show [--json] [options]

The roster file: org, version, members (with handles the running hub knows),
roles, archive marks, signatures, and whether it is the roster in force; or
the local-mode line when there is none.
`,
  verify: `Usage: parley roster verify [FILE] [options]

Checks a roster file offline: its shape and every signature, by an admin of
the roster itself; and, when a hub runs with a roster, whether the hub would
take it (same org, newer, signed by admins of the version in force). Exit 0
when it holds, 1 when it does not.
`,
} as const;

type Verb = keyof typeof HELPS;

interface HubRoster {
  trust: TrustMode;
  roster: Roster | null;
  versions: number[];
  file: string;
  participants: Array<{ handle: string; kind: string; pubkey: string; access: Access | null }>;
}

/** What every roster command works with: the home, the roster file, and the running hub if any. */
class RosterPlace {
  readonly file: string;
  /** --url or PARLEY_URL; else the hub running on the home, once it has proved it is that hub. */
  readonly #given: string | undefined;
  #url: string | undefined;
  readonly #token: string | undefined;
  #hub: HubRoster | undefined | null = null;

  constructor(
    readonly home: string,
    values: { roster?: string | undefined; config?: string | undefined; url?: string | undefined },
  ) {
    const config = loadConfig({
      home,
      configFile: values.config,
      flags: { 'trust.rosterPath': values.roster === undefined ? undefined : path.resolve(values.roster) },
      flagNames: { 'trust.rosterPath': '--roster' },
    });
    this.file = rosterFileOf(config.trust.rosterPath, home).file;
    this.#given = givenHubUrl(values, process.env);
    this.#token = readAdminToken(home);
  }

  /** The running hub's roster and participants; undefined when no hub runs on the home. */
  async hub(): Promise<HubRoster | undefined> {
    if (this.#hub !== null) return this.#hub;
    const holder = this.#given === undefined ? liveHub(this.home) : undefined;
    if ((this.#given === undefined && !holder?.url) || this.#token === undefined) return (this.#hub = undefined);
    // A process at the home's hub address that fails the proof is an error (it gets no admin token), not "no hub running".
    this.#url = this.#given ?? (await provenHubUrl(this.home, holder));
    try {
      this.#hub = await callHub<HubRoster>(this.#url, 'GET', '/api/v1/hub/roster', this.#token);
    } catch (error) {
      if (isParleyError(error) && error.code === 'HUB_CLOSED') return (this.#hub = undefined);
      throw error;
    }
    return this.#hub;
  }

  async call<T>(method: string, route: string, body: unknown): Promise<T> {
    return callHub<T>(this.#url!, method, route, this.#token!, body);
  }

  hasFile(): boolean {
    return fs.existsSync(this.file);
  }

  /** The roster file, read and checked for shape (not trust). */
  read(): Roster {
    return readRosterFile(this.file);
  }

  /** The roster to edit: the file, else the roster in force on the running hub. */
  async base(): Promise<Roster> {
    if (this.hasFile()) return this.read();
    const hub = await this.hub();
    if (hub?.roster) return parseRoster(hub.roster);
    throw new ParleyError('NOT_FOUND', `No roster file at ${this.file}${hub ? ' and no roster in force on the running hub' : ''}; make one with "parley roster init --org ID" (or give --roster FILE).`, {
      field: 'roster',
    });
  }

  /** The ed25519: key a member argument names: a key as written, or @handle on the running hub. */
  async keyOf(who: string | undefined, usage: string): Promise<{ pubkey: string; handle?: string }> {
    if (who === undefined) throw new ParleyError('INVALID_INPUT', `Name the member: ${usage}.`, { field: 'member' });
    if (who.startsWith('@')) {
      const handle = who.slice(1);
      const hub = await this.hub();
      if (!hub) {
        throw new ParleyError('INVALID_INPUT', `Cannot look up ${who}: no hub runs on ${this.home}. Give the key instead (ed25519:…; "parley whoami --key --as ${handle}" prints it), or start the hub.`, {
          field: 'member',
        });
      }
      const found = hub.participants.find((p) => p.handle.toLowerCase() === handle.toLowerCase());
      if (!found) throw new ParleyError('INVALID_INPUT', `No participant ${who} on the running hub; check the handle, or give the key (ed25519:…).`, { field: 'member' });
      return { pubkey: found.pubkey, handle: found.handle };
    }
    try {
      return { pubkey: formatPublicKey(parsePublicKey(who, 'member')) };
    } catch (error) {
      throw new ParleyError('INVALID_INPUT', `${(error as Error).message.replace(/\.$/, '')}; or name a participant of the running hub as @HANDLE.`, { field: 'member' });
    }
  }

  /** Handles by key, for display: the hub's participants and this home's hub key. */
  async handles(): Promise<Map<string, string>> {
    const names = new Map<string, string>();
    for (const p of (await this.hub())?.participants ?? []) names.set(p.pubkey, `@${p.handle}`);
    const hubKey = this.hubKey();
    if (hubKey) names.set(hubKey, 'this hub');
    return names;
  }

  /** This home's hub public key, when the home has one (never made here, except by init). */
  hubKey(): string | undefined {
    const file = hubKeyPathOf(this.home);
    if (!fs.existsSync(file)) return undefined;
    return formatPublicKey(rawPublicKeyOf(readKeyFile(file)));
  }
}

/** The flags of the roster commands; each command accepts only its own (parseArgs refuses the others). */
interface RosterFlags {
  home?: string;
  config?: string;
  roster?: string;
  url?: string;
  json?: boolean;
  help?: boolean;
  org?: string;
  role?: string;
  archive?: boolean;
  as?: string;
}

function parse(argv: string[], extra: Record<string, { type: 'string' | 'boolean' }> = {}): { values: RosterFlags; positionals: string[] } {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      home: { type: 'string' },
      config: { type: 'string' },
      roster: { type: 'string' },
      url: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      ...extra,
    },
  }) as { values: RosterFlags; positionals: string[] };
}

function helped(verb: Verb, help: boolean | undefined): boolean {
  if (help) process.stdout.write(`${HELPS[verb]}\n${COMMON}`);
  return help === true;
}

function placeOf(values: { home?: string | undefined; roster?: string | undefined; config?: string | undefined; url?: string | undefined }): RosterPlace {
  return new RosterPlace(resolveHome(values.home), values);
}

function roleOf(value: string | undefined, flag: string): Access {
  const parsed = AccessSchema.safeParse(value);
  if (!parsed.success) {
    throw new ParleyError('INVALID_INPUT', `Invalid ${flag}: ${value === undefined ? 'missing' : `"${value}" is not a role`}; give observer, member, operator or admin.`, { field: flag });
  }
  return parsed.data;
}

function noExtra(positionals: string[], from: number, usage: string): void {
  if (positionals.length > from) throw new ParleyError('INVALID_INPUT', `Unexpected argument "${positionals[from]}": ${usage}.`, { field: 'arguments' });
}

const nowStamp = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

/**
 * The draft after an edit: one version above the signed roster it came from
 * (a draft not yet signed keeps its version), a fresh timestamp, and no
 * signatures, since they would not cover the change.
 */
function draftOf(base: Roster, members: RosterMember[]): Roster {
  const version = base.signatures.length === 0 ? base.version : base.version + 1;
  return parseRoster({ org_id: base.org_id, version, timestamp: nowStamp(), members, signatures: [] });
}

function say(values: { json?: boolean | undefined }, json: unknown, text: string): void {
  process.stdout.write(values.json ? `${JSON.stringify(json)}\n` : `${text}\n`);
}

/** Hands the roster to the running hub; what it said, or undefined when none runs. */
async function push(place: RosterPlace, roster: Roster): Promise<{ accepted: boolean; message: string } | undefined> {
  if (!(await place.hub())) return undefined;
  try {
    const answer = await place.call<{ accepted: { org_id: string; version: number; members: number } }>('POST', '/api/v1/hub/roster', roster);
    return { accepted: true, message: `the running hub accepted it: roster ${answer.accepted.org_id} v${answer.accepted.version} (${answer.accepted.members} members) is in force` };
  } catch (error) {
    if (!isParleyError(error)) throw error;
    return { accepted: false, message: `the running hub refused it (${error.code}): ${error.message}` };
  }
}

export async function rosterInit(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { org: { type: 'string' } });
  if (helped('init', values.help)) return 0;
  noExtra(positionals, 0, 'parley roster init --org ID');
  if (values.org === undefined) throw new ParleyError('INVALID_INPUT', 'Give the organisation id: parley roster init --org ID (letters, digits, "_", ".", ":" or "-").', { field: '--org' });
  const place = placeOf(values);
  if (place.hasFile()) {
    throw new ParleyError('CONFLICT', `A roster already exists at ${place.file}; change it with "parley roster add|remove|set-role", or give another --roster FILE.`, { field: 'roster' });
  }
  const hub = await place.hub();
  if (hub?.roster) {
    throw new ParleyError('CONFLICT', `The running hub already has roster ${hub.roster.org_id} v${hub.roster.version}; edit it with "parley roster add|remove|set-role" instead.`, { field: 'roster' });
  }
  makeHomePrivate(place.home);
  const hubKey = ensureKeyFile(hubKeyPathOf(place.home)).privateKey;
  const hubPubkey = formatPublicKey(rawPublicKeyOf(hubKey));
  const members: RosterMember[] = [{ pubkey: hubPubkey, role: 'admin' }];
  for (const p of hub?.participants ?? []) {
    if (p.access !== null && p.pubkey !== hubPubkey) members.push({ pubkey: p.pubkey, role: p.access });
  }
  let draft: Roster;
  try {
    draft = parseRoster({ org_id: values.org, version: 1, timestamp: nowStamp(), members, signatures: [] });
  } catch (error) {
    if (isParleyError(error) && error.field === 'org_id') throw new ParleyError('INVALID_INPUT', error.message.replace('roster field org_id', '--org'), { field: '--org' });
    throw error;
  }
  const roster = signRoster(draft, hubKey);
  writeRosterFile(place.file, roster);
  const pushed = await push(place, roster);
  say(values, { file: place.file, roster, pushed: pushed ?? null }, [
    `made roster ${roster.org_id} v1 at ${place.file}, signed by this hub's key`,
    `  members: ${roster.members.length} (this hub as admin${hub ? `, and the hub's ${roster.members.length - 1} participants with their access now` : ''})`,
    `  ${pushed ? pushed.message : 'no hub runs on this home: "parley serve" loads it'}`,
  ].join('\n'));
  return pushed?.accepted === false ? 1 : 0;
}

/** add, remove and set-role: one edit of the member list, saved as an unsigned draft. */
async function edit(verb: 'add' | 'remove' | 'set-role', argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, verb === 'add' ? { role: { type: 'string' }, archive: { type: 'boolean' } } : {});
  if (helped(verb, values.help)) return 0;
  const usage = HELPS[verb].split('\n')[0]!.replace('Usage: ', '');
  const place = placeOf(values);
  const who = await place.keyOf(positionals[0], usage);
  const role = verb === 'add' ? roleOf(values.role, '--role') : verb === 'set-role' ? roleOf(positionals[1], 'ROLE') : undefined;
  noExtra(positionals, verb === 'set-role' ? 2 : 1, usage);
  const name = who.handle ? `@${who.handle}` : who.pubkey;
  if (verb === 'set-role' && !place.hasFile()) {
    const hub = await place.hub();
    if (hub?.trust.mode === 'local') return setLocalAccess(place, values, hub, who.pubkey, role!);
  }
  const base = await place.base();
  const index = base.members.findIndex((m) => m.pubkey === who.pubkey);
  const members = base.members.map((m) => ({ ...m }));
  if (verb === 'add') {
    if (index >= 0) throw new ParleyError('CONFLICT', `${name} is already a member (${base.members[index]!.role}); use "parley roster set-role" to change its role.`, { field: 'member' });
    members.push({ pubkey: who.pubkey, role: role!, ...(values.archive ? { archive: true } : {}) });
  } else if (index < 0) {
    throw new ParleyError('NOT_FOUND', `${name} is not a member of roster ${base.org_id} v${base.version}; "parley roster show" lists them.`, { field: 'member' });
  } else if (verb === 'remove') {
    members.splice(index, 1);
  } else {
    members[index]!.role = role!;
  }
  const draft = draftOf(base, members);
  writeRosterFile(place.file, draft);
  const what = verb === 'add' ? `added ${name} as ${role}` : verb === 'remove' ? `removed ${name}` : `set ${name} to ${role}`;
  say(values, { file: place.file, roster: draft }, `${what}: roster ${draft.org_id} v${draft.version} at ${place.file} is an unsigned draft; sign it with "parley roster sign" to put it in force`);
  return 0;
}

/** Local mode: the hub's own access setting for a participant, at once. */
async function setLocalAccess(place: RosterPlace, values: { json?: boolean | undefined }, hub: HubRoster, pubkey: string, role: Access): Promise<number> {
  const participant = hub.participants.find((p) => p.pubkey === pubkey);
  if (!participant) throw new ParleyError('NOT_FOUND', `No participant with key ${pubkey} on the running hub; check the key, or give @HANDLE.`, { field: 'member' });
  await place.call('PUT', `/api/v1/participants/${encodeURIComponent(participant.handle)}/access`, { access: role });
  say(values, { mode: 'local', handle: participant.handle, access: role }, `local mode (no roster): @${participant.handle} is now ${role} on the running hub (from its next call; no roster file was written)`);
  return 0;
}

export const rosterAdd = (argv: string[]): Promise<number> => edit('add', argv);
export const rosterRemove = (argv: string[]): Promise<number> => edit('remove', argv);
export const rosterSetRole = (argv: string[]): Promise<number> => edit('set-role', argv);

export async function rosterSign(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { as: { type: 'string' } });
  if (helped('sign', values.help)) return 0;
  noExtra(positionals, 0, 'parley roster sign [--as HANDLE]');
  const place = placeOf(values);
  if (!place.hasFile()) throw new ParleyError('NOT_FOUND', `No roster file at ${place.file} to sign; make one with "parley roster init --org ID" or give --roster FILE.`, { field: 'roster' });
  const draft = place.read();
  let key;
  let signer = "this hub's key";
  if (values.as === undefined) {
    const file = hubKeyPathOf(place.home);
    if (!fs.existsSync(file)) throw new ParleyError('NOT_FOUND', `This home has no hub key (${file}); make it with "parley keygen", or sign --as HANDLE.`, { field: '--as' });
    key = readKeyFile(file);
  } else {
    const { pubkey, handle } = await place.keyOf(`@${values.as.replace(/^@/, '')}`, 'parley roster sign --as HANDLE');
    const file = participantKeyPathOf(place.home, participantIdOf(parsePublicKey(pubkey)));
    if (!fs.existsSync(file)) throw new ParleyError('NOT_FOUND', `This home holds no key for @${handle} (${file}); sign where that participant registered.`, { field: '--as' });
    key = readKeyFile(file);
    signer = `@${handle}'s key`;
  }
  // Only admins of the version in force (of the draft itself for a first roster) may sign: a signature by
  // anyone else would make the hub refuse the roster until it is edited again, so none is added.
  const authority = (await place.hub())?.roster ?? draft;
  const signerKey = formatPublicKey(rawPublicKeyOf(key));
  const role = authority.members.find((m) => m.pubkey === signerKey)?.role;
  if (role !== 'admin') {
    throw new ParleyError(
      'ROSTER_INVALID',
      `Not signed: ${signer} (${signerKey}) is ${role === undefined ? 'not a member' : role} in roster ${authority.org_id} v${authority.version}; only its admins may sign a new version. Sign with an admin's key (--as HANDLE, or the hub key).`,
      { field: '--as' },
    );
  }
  const roster = signRoster(draft, key);
  writeRosterFile(place.file, roster);
  const pushed = await push(place, roster);
  say(values, { file: place.file, roster, pushed: pushed ?? null }, [
    `signed roster ${roster.org_id} v${roster.version} with ${signer} (${roster.signatures.length} signature${roster.signatures.length === 1 ? '' : 's'})`,
    `  ${pushed ? pushed.message : 'no hub runs on this home: "parley serve" loads it'}`,
  ].join('\n'));
  return pushed?.accepted === false ? 1 : 0;
}

export async function rosterShow(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv);
  if (helped('show', values.help)) return 0;
  noExtra(positionals, 0, 'parley roster show');
  const place = placeOf(values);
  const hub = await place.hub();
  const roster = place.hasFile() ? place.read() : hub?.roster ? parseRoster(hub.roster) : undefined;
  if (!roster) {
    const line = hub ? trustSummary(hub.trust) : 'local mode (no roster)';
    const who = (hub?.participants ?? []).map((p) => `  ${String(p.access).padEnd(9)} @${p.handle} (${p.kind})`);
    say(values, { file: place.file, roster: null, trust: hub?.trust ?? { mode: 'local' }, participants: hub?.participants ?? [] }, [
      `trust: ${line}`,
      `no roster file at ${place.file}; make one with "parley roster init --org ID"`,
      ...(who.length ? ['access now:', ...who] : []),
    ].join('\n'));
    return 0;
  }
  const names = await place.handles();
  const inForce = hub?.trust.mode === 'roster' && hub.roster !== null && hub.roster.version === roster.version && hub.roster.org_id === roster.org_id;
  const signatures = roster.signatures.map((s) => ({ ...s, valid: verifyRosterSignature(roster, s) }));
  const state =
    roster.signatures.length === 0
      ? 'unsigned draft: sign it with "parley roster sign"'
      : inForce
        ? 'in force on the running hub'
        : hub?.trust.mode === 'roster'
          ? `not in force (the running hub has v${hub.trust.version})`
          : hub
            ? 'not in force (the running hub is in local mode): "parley roster sign" hands it over'
            : 'no hub runs on this home';
  say(values, { file: place.file, roster, inForce, signatures, trust: hub?.trust ?? null }, [
    `roster ${roster.org_id} v${roster.version} (${roster.timestamp}) at ${place.file}`,
    `  ${state}`,
    `members (${roster.members.length}):`,
    ...roster.members.map((m) => `  ${m.role.padEnd(9)} ${m.pubkey}${names.has(m.pubkey) ? `  ${names.get(m.pubkey)}` : ''}${m.archive ? '  archive' : ''}`),
    `signatures (${roster.signatures.length}):`,
    ...signatures.map((s) => `  ${s.valid ? 'valid' : 'INVALID'}  ${s.pubkey}${names.has(s.pubkey) ? `  ${names.get(s.pubkey)}` : ''}`),
  ].join('\n'));
  return 0;
}

export async function rosterVerify(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv);
  if (helped('verify', values.help)) return 0;
  noExtra(positionals, 1, 'parley roster verify [FILE]');
  const place = placeOf(values);
  const file = positionals[0] === undefined ? place.file : path.resolve(positionals[0]);
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
