import { ParleyError } from '../errors/parley-error.js';
import { readAdminToken } from '../home/admin-token.js';
import type { Access } from '../schema/access.js';
import type { Participant } from '../schema/participant.js';
import type { PeerLinkInfo } from '../schema/peer-link.js';
import type { Roster } from '../schema/roster.js';
import type { TrustMode } from '../schema/views.js';
import type { JsonTransport } from './json-transport.js';
import { OneShotJson } from './one-shot-json.js';

/**
 * What the hub's owner does with the home's admin token (written by the hub
 * into its home at each start): registering participants and rotating their
 * tokens, reading the roster and handing the hub a new version, setting a
 * participant's access in local mode.
 */
export interface Registration {
  participant: Participant;
  session: { name: string };
  token: string;
  /** The participant's access; null under a roster that leaves its key out (absent from hubs that do not say). */
  access?: Access | null;
  trust?: TrustMode;
}

/** The running hub's roster and its participants, with the access each has now. */
export interface HubRoster {
  trust: TrustMode;
  roster: Roster | null;
  versions: number[];
  file: string;
  participants: Array<{ handle: string; kind: string; pubkey: string; access: Access | null }>;
}

export interface RosterAccepted {
  accepted: { org_id: string; version: number; members: number };
}

const enc = encodeURIComponent;

export class HubAdmin {
  readonly #http: JsonTransport;

  constructor(url: string, adminToken: string) {
    this.#http = new OneShotJson(url, adminToken);
  }

  /** The hub at `url` with the admin token its home holds; HUB_CLOSED when the home holds none (no hub has run there). */
  static ofHome(url: string, home: string): HubAdmin {
    const token = readAdminToken(home);
    if (!token) throw new ParleyError('HUB_CLOSED', `No running hub has written its admin token in ${home}; start one with "parley serve" (same --home).`);
    return new HubAdmin(url, token);
  }

  /** Joins a participant (again: same identity, the profile fields given updated) and issues it a token. */
  register(body: { handle: string; session?: string; profile?: Record<string, unknown> }): Promise<Registration> {
    return this.#http.request('POST', '/participants', body);
  }

  /** Revokes every token of the participant in the session and issues a new one. */
  rotateToken(handle: string, session: string | undefined): Promise<{ handle: string; session: string; token: string }> {
    return this.#http.request('POST', `/participants/${enc(handle)}/tokens/rotate`, session === undefined ? {} : { session });
  }

  roster(): Promise<HubRoster> {
    return this.#http.request('GET', '/hub/roster');
  }

  /** Hands the hub a signed roster; `confirm` puts in force one that leaves out members holding live sessions. */
  pushRoster(roster: Roster, confirm: boolean): Promise<RosterAccepted> {
    return this.#http.request('POST', '/hub/roster', confirm ? { ...roster, confirm: true } : roster);
  }

  /** The hubs this one links to (parley peer list). */
  peers(): Promise<{ trust: TrustMode; addrs: string[]; peers: PeerLinkInfo[] }> {
    return this.#http.request('GET', '/hub/peers');
  }

  /** Keeps a hub in the home and dials it now (parley peer add). */
  addPeer(addr: string): Promise<{ peer: PeerLinkInfo; added: boolean }> {
    return this.#http.request('POST', '/hub/peers', { addr });
  }

  /** Forgets a kept hub by its key or one address, and closes its links (parley peer remove). */
  removePeer(peer: string): Promise<{ removed: string[] }> {
    return this.#http.request('DELETE', `/hub/peers/${enc(peer)}`);
  }

  /** Cuts the link to a hub for `seconds` (parley peer block). */
  blockPeer(key: string, seconds: number): Promise<{ peer: PeerLinkInfo; until: string }> {
    return this.#http.request('POST', `/hub/peers/${enc(key)}/block`, { seconds });
  }

  /** Lifts a block (parley peer unblock). */
  unblockPeer(key: string): Promise<{ unblocked: boolean }> {
    return this.#http.request('DELETE', `/hub/peers/${enc(key)}/block`);
  }

  /** Local mode (no roster): the participant's access on the hub, from its next call. */
  setAccess(handle: string, access: Access): Promise<unknown> {
    return this.#http.request('PUT', `/participants/${enc(handle)}/access`, { access });
  }
}
