import type { Roster } from '../schema/roster.js';
import type { Store } from '../store/store.js';
import { parsePublicKey } from '../trust/node-id.js';
import { acceptRoster, memberOf, parseRoster } from '../trust/roster.js';
import { settled } from '../util/background.js';
import type { RosterView } from './access-resolver.js';

/**
 * The rosters a hub accepted: the chain, oldest first, kept in the store so
 * that a signed export carries every version its events were written under.
 * A new version is accepted only as the roster rules say (src/trust/roster.ts): signed
 * by admins of the version in force, of the same org, and newer.
 */
export class RosterBook {
  readonly #store: Store;
  readonly #chain: Roster[];
  /** Each version's signed timestamp (epoch ms), as the chain: asked for every event of history taken in. */
  readonly #signedAt: number[];
  /** Acceptances run one at a time: each is checked against the version the one before it put in force. */
  #turn: Promise<unknown> = Promise.resolve();

  constructor(store: Store) {
    this.#store = store;
    this.#chain = store.rosters.all().map((doc) => parseRoster(doc));
    this.#signedAt = this.#chain.map((roster) => Date.parse(roster.timestamp));
  }

  /** The roster in force; undefined in local mode. */
  current(): Roster | undefined {
    return this.#chain.at(-1);
  }

  chain(): readonly Roster[] {
    return this.#chain;
  }

  /**
   * The roster in force at `ts` (epoch ms): the newest version signed at or
   * before it; undefined when none was yet (the hub was in local mode).
   */
  inForceAt(ts: number): Roster | undefined {
    let found: Roster | undefined;
    this.#chain.forEach((roster, i) => {
      if (this.#signedAt[i]! <= ts) found = roster;
    });
    return found;
  }

  /**
   * Checks `next` against the roster in force and keeps it (refusals: ROSTER_INVALID, ROSTER_ROLLBACK,
   * BAD_SIGNATURE). `vet` may refuse it too, once it is known to be acceptable, against the same roster
   * in force (no other acceptance runs in between); nothing is kept when it throws.
   */
  accept(next: unknown, now: number, vet?: (current: Roster | undefined, next: Roster) => void): Promise<Roster> {
    const accepted = this.#turn.then(async () => {
      const current = this.current();
      const roster = acceptRoster(current, next);
      vet?.(current, roster);
      const { committed } = this.#store.writes.write(() => this.#store.rosters.insert(roster.version, roster.org_id, roster, now));
      await committed;
      this.#chain.push(roster);
      this.#signedAt.push(Date.parse(roster.timestamp));
      return roster;
    });
    // The turn only orders acceptances: a refusal goes to this caller through `accepted`.
    this.#turn = settled(accepted);
    return accepted;
  }
}

/** Each roster's view, made once: history taken in asks for one per event. */
const views = new WeakMap<Roster, RosterView>();

/** The view of one roster the access resolver reads. */
export function rosterViewOf(roster: Roster): RosterView {
  let view = views.get(roster);
  if (view === undefined) views.set(roster, (view = viewOf(roster)));
  return view;
}

function viewOf(roster: Roster): RosterView {
  const admins = roster.members.filter((m) => m.role === 'admin').map((m) => parsePublicKey(m.pubkey));
  return {
    orgId: roster.org_id,
    version: roster.version,
    members: roster.members.length,
    accessOf: (raw) => memberOf(roster, raw)?.access,
    isArchive: (raw) => memberOf(roster, raw)?.archive === true,
    admins: () => admins,
  };
}
