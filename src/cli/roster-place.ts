import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config/load.js';
import { ParleyError, isParleyError } from '../errors/parley-error.js';
import { readAdminToken } from '../home/admin-token.js';
import type { Roster } from '../schema/roster.js';
import { hubKeyPathOf, readKeyFile } from '../trust/key-files.js';
import { formatPublicKey, parsePublicKey, rawPublicKeyOf } from '../trust/node-id.js';
import { readRosterFile, rosterFileOf } from '../trust/roster-file.js';
import { draftFileOf, isDraftInRosterFile, readDraftFile, setDraftAside, unreadableDraft } from '../trust/roster-draft.js';
import { acceptRoster, parseRoster } from '../trust/roster.js';
import { givenHubUrl, provenHubUrl } from '../client/hub-address.js';
import { HubAdmin, type HubRoster } from '../client/hub-admin.js';
import { liveHub } from '../client/live-hub.js';
import type { StoredHome } from '../hub/index.js';

/**
 * Where the roster commands work: this home's roster file (the signed
 * version in force) and the draft beside it, and the hub running on the home
 * (read and handed new versions with the home's admin token, the hub owner's
 * credential), or with none running, the home's store, read-only.
 */

/** What every roster command works with: the home, the roster file, and the running hub if any. */
export class RosterPlace {
  /** The roster file: the signed version in force. */
  readonly file: string;
  /** The draft beside it: edits not yet signed, never loaded by a hub. */
  readonly draftFile: string;
  /** --url or PARLEY_URL; else the hub running on the home, once it has proved it is that hub. */
  readonly #given: string | undefined;
  readonly #token: string | undefined;
  /** The running hub, asked with the home's admin token; set once hub() has found it. */
  #admin: HubAdmin | undefined;
  #hub: HubRoster | undefined | null = null;
  #stored: StoredHome | undefined;

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
    this.draftFile = draftFileOf(this.file);
    this.#given = givenHubUrl(values, process.env);
    this.#token = readAdminToken(home);
  }

  /** The running hub's roster and participants; undefined when no hub runs on the home. */
  async hub(): Promise<HubRoster | undefined> {
    if (this.#hub !== null) return this.#hub;
    const holder = this.#given === undefined ? liveHub(this.home) : undefined;
    if ((this.#given === undefined && !holder?.url) || this.#token === undefined) return (this.#hub = undefined);
    // A process at the home's hub address that fails the proof is an error (it gets no admin token), not "no hub running".
    const admin = new HubAdmin(this.#given ?? (await provenHubUrl(this.home, holder)), this.#token);
    try {
      this.#hub = await admin.roster();
      this.#admin = admin;
    } catch (error) {
      if (isParleyError(error) && error.code === 'HUB_CLOSED') return (this.#hub = undefined);
      throw error;
    }
    return this.#hub;
  }

  /** The running hub, for a command that changes it; call once hub() has found one. */
  admin(): HubAdmin {
    if (!this.#admin) throw new Error('RosterPlace.admin() before hub() found a hub');
    return this.#admin;
  }

  hasFile(): boolean {
    return fs.existsSync(this.file);
  }

  /** The roster file, read and checked for shape (not trust). */
  read(): Roster {
    return readRosterFile(this.file);
  }

  /**
   * The roster in force: the running hub's; with no hub running, the one a
   * hub started now would run on (the newest its store holds, or the roster
   * file when it is signed and a hub would accept it). Undefined: local mode.
   */
  async inForce(): Promise<Roster | undefined> {
    const hub = await this.hub();
    if (hub) return hub.roster ? parseRoster(hub.roster) : undefined;
    const stored = (await this.#storedHome()).roster;
    let onFile: Roster;
    try {
      if (!this.hasFile()) return stored;
      onFile = this.read();
    } catch {
      return stored;
    }
    if (onFile.signatures.length === 0 || (stored !== undefined && onFile.version <= stored.version)) return stored;
    try {
      return acceptRoster(stored, onFile);
    } catch {
      return stored;
    }
  }

  /**
   * The pending draft and the file it is in: the draft file; or, as earlier
   * versions of Parley left it, an unsigned roster in the roster file newer
   * than the version in force.
   */
  async draft(): Promise<{ roster: Roster; file: string } | undefined> {
    let fromFile: Roster | undefined;
    try {
      fromFile = readDraftFile(this.draftFile);
    } catch (error) {
      throw unreadableDraft(this.draftFile, error);
    }
    if (fromFile) return { roster: fromFile, file: this.draftFile };
    if (!this.hasFile()) return undefined;
    const onFile = this.read();
    return isDraftInRosterFile(onFile, await this.inForce()) ? { roster: onFile, file: this.file } : undefined;
  }

  /** The pending draft, for a command that changes it: one found in the roster file is first moved to the draft file. */
  async draftToChange(): Promise<Roster | undefined> {
    const draft = await this.draft();
    if (draft?.file === this.file) setDraftAside(this.file, await this.inForce());
    return draft?.roster;
  }

  /** The roster to edit, and whether it is the draft: the draft, else the newest of the roster file and the version in force. */
  async base(): Promise<{ roster: Roster; draft: boolean }> {
    const draft = await this.draftToChange();
    if (draft) return { roster: draft, draft: true };
    const onFile = this.hasFile() ? this.read() : undefined;
    const inForce = await this.inForce();
    const newest = onFile && (!inForce || onFile.version >= inForce.version) ? onFile : inForce;
    if (newest) return { roster: newest, draft: false };
    const hub = await this.hub();
    throw new ParleyError('NOT_FOUND', `No roster file at ${this.file}${hub ? ' and no roster in force on the running hub' : ''}; make one with "parley roster init --org ID" (or give --roster FILE).`, {
      field: 'roster',
    });
  }

  /**
   * The ed25519: key a member argument names: a key as written, or @handle:
   * a participant of the running hub, or with none running, of this home's store.
   */
  async keyOf(who: string | undefined, usage: string): Promise<{ pubkey: string; handle?: string }> {
    if (who === undefined) throw new ParleyError('INVALID_INPUT', `Name the member: ${usage}.`, { field: 'member' });
    if (who.startsWith('@')) {
      const handle = who.slice(1);
      const hub = await this.hub();
      const participants = hub ? hub.participants : (await this.#storedHome()).participants;
      if (!hub && participants.length === 0) {
        throw new ParleyError('INVALID_INPUT', `Cannot look up ${who}: no hub runs on ${this.home} and no participant has joined it yet. Give the key instead (ed25519:…), or start the hub.`, {
          field: 'member',
        });
      }
      const found = participants.find((p) => p.handle.toLowerCase() === handle.toLowerCase());
      const where = hub ? 'on the running hub' : `in this home (${this.home}; no hub runs on it)`;
      if (!found) throw new ParleyError('INVALID_INPUT', `No participant ${who} ${where}; check the handle, or give the key (ed25519:…).`, { field: 'member' });
      return { pubkey: found.pubkey, handle: found.handle };
    }
    try {
      return { pubkey: formatPublicKey(parsePublicKey(who, 'member')) };
    } catch (error) {
      throw new ParleyError('INVALID_INPUT', `${(error as Error).message.replace(/\.$/, '')}; or name a participant of the hub as @HANDLE.`, { field: 'member' });
    }
  }

  /** The home's store, read once (only when no hub runs: a running hub is asked instead). */
  async #storedHome(): Promise<StoredHome> {
    // Loaded here: with a hub running, a roster command never loads the hub's modules.
    this.#stored ??= (await import('../hub/index.js')).readStoredHome(this.home);
    return this.#stored;
  }

  /** Handles by key, for display: the hub's participants (or the store's, with no hub running) and this home's hub key. */
  async handles(): Promise<Map<string, string>> {
    const names = new Map<string, string>();
    const hub = await this.hub();
    let participants: Array<{ handle: string; pubkey: string }> = hub?.participants ?? [];
    try {
      if (!hub) participants = (await this.#storedHome()).participants;
    } catch {
      // Only names for display: a store that cannot be read leaves keys unnamed ("parley doctor" says why).
    }
    for (const p of participants) names.set(p.pubkey, `@${p.handle}`);
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

/**
 * Hands the roster to the running hub; what it said, or undefined when none runs. `confirm`: put it in
 * force even though it leaves out members who hold live sessions (the hub refuses it otherwise).
 */
export async function push(place: RosterPlace, roster: Roster, confirm = false): Promise<{ accepted: boolean; message: string } | undefined> {
  if (!(await place.hub())) return undefined;
  try {
    const answer = await place.admin().pushRoster(roster, confirm);
    return { accepted: true, message: `the running hub accepted it: roster ${answer.accepted.org_id} v${answer.accepted.version} (${answer.accepted.members} members) is in force` };
  } catch (error) {
    if (!isParleyError(error)) throw error;
    return { accepted: false, message: `the running hub refused it (${error.code}): ${error.messageFor('cli')}` };
  }
}
