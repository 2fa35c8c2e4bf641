import type { Config } from '../config/schema.js';
import type { LiveHub } from '../client/live-hub.js';
import { isParleyError } from '../errors/parley-error.js';
import { readPeerBook, type PeerBookEntry } from '../home/peer-book.js';
import { storedRoster } from '../hub/index.js';
import type { Roster } from '../schema/roster.js';
import { hubKeyPathOf, readKeyFile } from '../trust/key-files.js';
import { formatPublicKey, rawPublicKeyOf } from '../trust/node-id.js';
import { askPeerSelf, type HubStatus } from './running-hub.js';
import { gapsText } from './peer-drops.js';

/**
 * `parley doctor`'s peer links check: where this hub listens for peers, the
 * roster's hub entries (this hub's own, and each kept peer's: a hub the
 * roster does not list is never linked), and each kept peer's link, as the
 * running hub says it (with none running, what a start would dial).
 */
export interface PeerCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export async function peersCheck(home: string, config: Config, holder: LiveHub | undefined, status: HubStatus | undefined): Promise<PeerCheck> {
  let book: PeerBookEntry[];
  try {
    book = readPeerBook(home);
  } catch (error) {
    return { name: 'peers', ok: false, detail: isParleyError(error) ? error.message : String(error) };
  }
  // Learned addresses (from linked hubs' hellos) are dialled only while the roster lists them: no problem of their own.
  const kept = book.filter((entry) => !entry.learned);
  const learned = book.length - kept.length;
  const self = holder && status ? await askPeerSelf(holder, home) : undefined;
  const listening = self?.ok ? self.self.addrs : undefined;
  const listen = listening ? (listening.length > 0 ? `listening on ${listening.join(' ')}` : 'not listening for peers') : config.peers.listen.length > 0 ? `would listen on ${config.peers.listen.join(' ')}` : 'no peer listener configured';
  if (book.length === 0 && (status?.peers ?? []).length === 0) {
    return { name: 'peers', ok: true, detail: `${listen}; no peers kept ("parley peer add MULTIADDR" links another hub of the roster)` };
  }
  let roster: Roster | undefined;
  try {
    roster = storedRoster(home);
  } catch {
    // The store check says what is wrong with it.
  }
  const problems: string[] = [];
  const trust = status?.trust;
  if (trust ? trust.mode === 'local' : roster === undefined) problems.push('no roster is in force (local mode): every link is refused until one is ("parley roster init", or "parley roster import FILE")');
  const hubs = new Set((roster?.members ?? []).filter((member) => member.kind === 'hub').map((member) => member.pubkey));
  const ownKey = self?.ok ? self.self.key : hubKeyOf(home);
  if (roster && ownKey && !hubs.has(ownKey)) problems.push(`this hub's key is not a hub of roster ${roster.org_id} v${roster.version}: its peers refuse it ("parley roster add --from" its "peer self --json" file, on a hub whose roster admins sign)`);
  for (const key of new Set(kept.map((entry) => entry.key))) {
    if (roster && !hubs.has(key)) problems.push(`kept peer ${key} is not a hub of roster ${roster.org_id} v${roster.version}: it is refused`);
  }
  const links = status?.peers ?? [];
  for (const link of links) {
    // A hole in a channel's history, not silence: history sync asks the linked hubs for it.
    if ((link.gaps ?? []).length > 0) problems.push(`history incomplete: ${gapsText(link.gaps)} (asked of the linked hubs; it fills once one holding them is reachable)`);
    if (link.state === 'connected') continue;
    if (!link.configured && link.state === 'offline') continue;
    problems.push(`${link.name || link.key} is ${link.state}${link.reason ? `: ${link.reason}` : ''}`);
  }
  problems.push(...sharedNames(self?.ok ? self.self.name : undefined, links));
  const linked = links.filter((link) => link.state === 'connected').length;
  const summary = `${listen}; ${kept.length} kept${learned > 0 ? ` (and ${learned} learned from linked hubs)` : ''}, ${status ? `${linked} linked` : 'no hub runs to link them'}`;
  return { name: 'peers', ok: problems.length === 0, detail: problems.length === 0 ? summary : `${summary}; ${problems.join('; ')}` };
}

/**
 * Hubs that go by one name (hubs on one machine all take its host name
 * unless told otherwise): `handle@hubname` and the page tell hubs apart by
 * it, so each needs its own.
 */
function sharedNames(ownName: string | undefined, links: ReadonlyArray<{ key: string; name: string }>): string[] {
  const byName = new Map<string, string[]>();
  if (ownName) byName.set(ownName, ['this hub']);
  for (const link of links) if (link.name) byName.set(link.name, [...(byName.get(link.name) ?? []), link.key]);
  return [...byName]
    .filter(([, hubs]) => hubs.length > 1)
    .map(([name, hubs]) => `${hubs.join(', ')} share the name "${name}": give each hub its own (peers.name, or PARLEY_PEERS_NAME), since handle@hubname and the page tell hubs apart by it`);
}

/** The home's hub key (`ed25519:…`), if it has one that can be read. */
function hubKeyOf(home: string): string | undefined {
  try {
    return formatPublicKey(rawPublicKeyOf(readKeyFile(hubKeyPathOf(home))));
  } catch {
    return undefined;
  }
}
