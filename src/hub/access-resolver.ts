import type { Config } from '../config/schema.js';
import { ParleyError } from '../errors/parley-error.js';
import { accessAtLeast, type Access } from '../schema/access.js';
import type { TrustMode } from '../schema/views.js';
import type { Store } from '../store/store.js';
import { accessNeeded, type Action } from './permissions.js';
import type { HubState } from './state.js';
import type { ParticipantRecord } from './records.js';
import { rawKeyOf } from './participant-key.js';

/**
 * What the hub needs of a signed roster (src/trust writes and checks the
 * document itself): who is in it, with which access, and who its admins are.
 * A hub given none runs in local mode.
 */
export interface RosterView {
  readonly orgId: string;
  readonly version: number;
  /** How many members it lists (doctor, status and the page show it). */
  readonly members?: number;
  /** The access of the member with this raw 32-byte Ed25519 public key; undefined when it is not a member. */
  accessOf(publicKeyRaw: Buffer): Access | undefined;
  /** The raw public keys of the roster's admins (who can grant access). */
  admins(): Buffer[];
  /** Whether the member is marked archive (keeps history past the channels' retention). */
  isArchive(publicKeyRaw: Buffer): boolean;
}

/** A participant's access, or that a roster is in force and the participant's key is not in it. */
export type Standing = { access: Access } | { notInRoster: true };

/** Admins named in a refusal at most: enough to know whom to ask. */
const GRANTORS_SHOWN = 3;

/**
 * Decides each participant's permission role (`access`). With a roster: the
 * roster member's access by public key (absent: not in the roster). Without
 * one (local mode): an admin's override stored in the hub, else the config's
 * `trust.access[handle]`, else `trust.localAccess[kind]`. Answers are cached
 * per participant; an override or a new roster clears the cache and tells the
 * listeners (live MCP connections rebuild their tool lists).
 */
export class AccessResolver {
  readonly #cache = new Map<string, Standing>();
  readonly #listeners = new Set<(participantId: string | undefined) => void>();
  #roster: RosterView | undefined;
  /** trust.access by lower-cased handle: handles are told apart without case. */
  readonly #configured: Map<string, Access>;

  constructor(
    private readonly config: Config,
    private readonly store: Store,
    private readonly state: HubState,
    roster?: RosterView,
  ) {
    this.#roster = roster;
    this.#configured = new Map(Object.entries(config.trust.access).map(([handle, access]) => [handle.toLowerCase(), access]));
  }

  get trust(): TrustMode {
    const roster = this.#roster;
    return roster
      ? { mode: 'roster', org: roster.orgId, version: roster.version, ...(roster.members === undefined ? {} : { members: roster.members }) }
      : { mode: 'local', localAccess: { ...this.config.trust.localAccess } };
  }

  standing(participant: ParticipantRecord): Standing {
    let found = this.#cache.get(participant.id);
    if (!found) {
      found = this.#resolve(participant);
      this.#cache.set(participant.id, found);
    }
    return found;
  }

  /** The participant's access; undefined when a roster is in force and it is not a member. */
  accessOf(participant: ParticipantRecord): Access | undefined {
    const standing = this.standing(participant);
    return 'access' in standing ? standing.access : undefined;
  }

  /**
   * Refuses (FORBIDDEN_ROLE or NOT_IN_ROSTER) unless the participant's
   * access covers the action: under the roster in force, or under `roster`
   * (the one in force when a linked hub's history was written).
   */
  require(participant: ParticipantRecord, action: Action, label: string = action, roster?: RosterView): Access {
    const need = accessNeeded(action);
    const access = roster?.accessOf(rawKeyOf(participant));
    const standing: Standing = roster ? (access === undefined ? { notInRoster: true } : { access }) : this.standing(participant);
    if (!('access' in standing)) throw roster ? this.#notInRosterThen(participant, roster) : this.#notInRoster(participant);
    if (!accessAtLeast(standing.access, need)) {
      const grantors = this.grantors();
      const who = grantors.length ? ` (${grantors.map((h) => `@${h}`).join(' or ')})` : '';
      throw new ParleyError(
        'FORBIDDEN_ROLE',
        `${label} needs ${need}; you (@${participant.handle}) are ${standing.access}; nothing was done. An admin${who} can grant it: parley roster set-role @${participant.handle} ${need}`,
        { details: { need, have: standing.access, action, grantors } },
      );
    }
    return standing.access;
  }

  /**
   * Refuses (ADDRESSEE_NOT_IN_ROSTER on `field`) a request or direct message
   * to a participant outside the roster in force: every call of theirs is
   * refused, so they could neither read nor answer it. Local mode: no check.
   */
  requireAddressee(addressee: ParticipantRecord, field: string): void {
    const roster = this.#roster;
    if (!roster || 'access' in this.standing(addressee)) return;
    const key = `ed25519:${rawKeyOf(addressee).toString('base64url')}`;
    const admins = this.#rosterAdmins(roster);
    const who = admins.length ? admins.map((h) => `@${h}`).join(' or ') : 'a roster admin';
    throw new ParleyError(
      'ADDRESSEE_NOT_IN_ROSTER',
      `Invalid ${field}: @${addressee.handle} (${key}) is not in roster ${roster.orgId} v${roster.version}, so they could neither read nor answer it; nothing was sent. Ask ${who} to add their key.`,
      { field, hint: 'add-to-roster', details: { handle: addressee.handle, key, org: roster.orgId, version: roster.version } },
    );
  }

  /** Handles of participants who may grant access (admins), a few, humans first. */
  grantors(): string[] {
    const admins = [...this.state.participants.values()].filter((p) => this.accessOf(p) === 'admin');
    admins.sort((a, b) => Number(b.kind === 'human') - Number(a.kind === 'human') || a.handle.localeCompare(b.handle));
    return admins.slice(0, GRANTORS_SHOWN).map((p) => p.handle);
  }

  /**
   * Local mode: stores an admin's choice of a participant's access; it takes
   * effect on the participant's next call, and its MCP tool lists change now.
   */
  async setLocal(participant: ParticipantRecord, access: Access): Promise<void> {
    if (this.#roster) {
      throw new ParleyError(
        'FORBIDDEN',
        `This hub runs with roster ${this.#roster.orgId} v${this.#roster.version}: access comes from the roster. Change it there ("parley roster set-role @${participant.handle} ${access}", then sign).`,
        { field: 'access' },
      );
    }
    const { committed } = this.store.writes.write(() => this.store.access.set(participant.id, access));
    await committed;
    this.#cache.delete(participant.id);
    this.#notify(participant.id);
  }

  /** Whether the roster in force marks this key archive (false in local mode). */
  isArchive(publicKeyRaw: Buffer): boolean {
    return this.#roster?.isArchive(publicKeyRaw) ?? false;
  }

  /** The version of the roster in force, which each event records; null in local mode. */
  get rosterVersion(): number | null {
    return this.#roster?.version ?? null;
  }

  /** Puts a roster in force (or none: local mode); everyone's access is decided again. */
  useRoster(roster: RosterView | undefined): void {
    this.#roster = roster;
    this.#cache.clear();
    this.#notify(undefined);
  }

  /** Calls `listener` with the participant whose access may have changed (undefined: anyone's). Returns the unsubscribe. */
  onChange(listener: (participantId: string | undefined) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #notify(participantId: string | undefined): void {
    for (const listener of this.#listeners) listener(participantId);
  }

  #resolve(participant: ParticipantRecord): Standing {
    const roster = this.#roster;
    if (roster) {
      const access = roster.accessOf(rawKeyOf(participant));
      return access === undefined ? { notInRoster: true } : { access };
    }
    const access =
      this.store.access.get(participant.id) ??
      this.#configured.get(participant.handle.toLowerCase()) ??
      this.config.trust.localAccess[participant.kind === 'human' ? 'human' : 'agent'];
    return { access };
  }

  #notInRoster(participant: ParticipantRecord): ParleyError {
    const roster = this.#roster!;
    const key = rawKeyOf(participant).toString('base64url');
    const admins = this.#rosterAdmins(roster);
    const who = admins.length ? admins.map((h) => `@${h}`).join(' or ') : 'a roster admin';
    return new ParleyError(
      'NOT_IN_ROSTER',
      `Your key (@${participant.handle}, ed25519:${key}) is not in roster ${roster.orgId} v${roster.version}; nothing was done. Ask ${who} to add it: parley roster add ed25519:${key} --role member`,
      { details: { org: roster.orgId, version: roster.version } },
    );
  }

  #notInRosterThen(participant: ParticipantRecord, roster: RosterView): ParleyError {
    return new ParleyError('NOT_IN_ROSTER', `@${participant.handle} was not in roster ${roster.orgId} v${roster.version}, in force when the event was written; it was dropped.`, {
      details: { org: roster.orgId, version: roster.version },
    });
  }

  /** Handles of the roster's admins that are participants here, a few: whom to ask. */
  #rosterAdmins(roster: RosterView): string[] {
    return roster
      .admins()
      .map((raw) => [...this.state.participants.values()].find((p) => p.publicKey === raw.toString('base64'))?.handle)
      .filter((h): h is string => h !== undefined)
      .slice(0, GRANTORS_SHOWN);
  }
}
