/**
 * The peers of this home (`peers.json`): the hubs `parley peer add` named,
 * dialled at every start of the hub. The running hub keeps it through its
 * admin API; with none running, the CLI edits the file itself.
 */

import fs from 'node:fs';
import path from 'node:path';
import { PEERS_FILENAME } from '../config/defaults.js';
import { ParleyError, fromZodError, parseInput } from '../errors/parley-error.js';
import { MAX_PEERS, PeerAddrSchema, PeerBookSchema, type PeerBookEntry } from '../schema/peer-book.js';
import { formatPublicKey } from '../trust/node-id.js';
import { keyOfPeerId } from '../trust/peer-id.js';
import { writeFileAtomically } from '../util/atomic-write.js';
import { PRIVATE_FILE_MODE } from './private-home.js';

export type { PeerBookEntry } from '../schema/peer-book.js';

export function peerBookFileOf(home: string): string {
  return path.join(home, PEERS_FILENAME);
}

/** A peer's multiaddr, checked, and the hub key its peer id stands for. */
export function parsePeerAddr(addr: unknown, field = 'addr'): { addr: string; key: string } {
  const text = parseInput(PeerAddrSchema, typeof addr === 'string' ? addr.trim() : addr, field);
  const peerId = text.slice(text.lastIndexOf('/p2p/') + '/p2p/'.length);
  const raw = keyOfPeerId(peerId);
  if (raw === undefined) {
    throw new ParleyError('INVALID_INPUT', `Invalid ${field}: its peer id ${peerId} is not a hub's (an Ed25519 key, "12D3KooW…"); copy the address "parley peer self" prints on that hub.`, { field });
  }
  return { addr: text, key: formatPublicKey(raw, field) };
}

/** The peers kept in the home, oldest first; none when the file does not exist. */
export function readPeerBook(home: string): PeerBookEntry[] {
  const file = peerBookFileOf(home);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new ParleyError('CONFIG_INVALID', `${file} is not valid JSON (${(error as Error).message}). Fix it, or remove it and add the peers again with "parley peer add".`, { field: 'peers' });
  }
  const parsed = PeerBookSchema.safeParse(doc);
  if (!parsed.success) {
    const cause = fromZodError(parsed.error, 'peers');
    throw new ParleyError('CONFIG_INVALID', `${file}: ${cause.message} Or remove it and add the peers again with "parley peer add".`, { field: cause.field ?? 'peers' });
  }
  return parsed.data.peers;
}

/** Adds a peer (its address, or a new address for a key already kept); `added` is false when the address was there. */
export function addToPeerBook(home: string, addr: unknown, now: Date = new Date()): { entry: PeerBookEntry; added: boolean } {
  const parsed = parsePeerAddr(addr);
  const peers = readPeerBook(home);
  const held = peers.find((peer) => peer.addr === parsed.addr);
  if (held?.learned) {
    // Learned before, kept now.
    const kept: PeerBookEntry = { addr: held.addr, key: held.key, added: now.toISOString() };
    writePeerBook(home, peers.map((peer) => (peer === held ? kept : peer)));
    return { entry: kept, added: true };
  }
  if (held) return { entry: held, added: false };
  const entry: PeerBookEntry = { ...parsed, added: now.toISOString() };
  writePeerBook(home, [...peers, entry]);
  return { entry, added: true };
}

/** Removes every address of a key (`ed25519:…`), or one address; what was removed (none: nothing matched). */
export function removeFromPeerBook(home: string, keyOrAddr: string): PeerBookEntry[] {
  const peers = readPeerBook(home);
  const wanted = keyOrAddr.trim();
  const removed = peers.filter((peer) => peer.key === wanted || peer.addr === wanted);
  if (removed.length > 0) writePeerBook(home, peers.filter((peer) => !removed.includes(peer)));
  return removed;
}

/**
 * Keeps the addresses a linked hub's hello named (each ending in its hub's
 * peer id) as learned, those not kept already; what is not a peer address is
 * passed over, and nothing is written when nothing is new or the book is full.
 * The entries now learned.
 */
export function learnPeers(home: string, addrs: readonly string[], now: Date = new Date()): PeerBookEntry[] {
  const peers = readPeerBook(home);
  const held = new Set(peers.map((peer) => peer.addr));
  const learned: PeerBookEntry[] = [];
  for (const addr of addrs) {
    let parsed: { addr: string; key: string };
    try {
      parsed = parsePeerAddr(addr);
    } catch {
      continue;
    }
    if (held.has(parsed.addr)) continue;
    held.add(parsed.addr);
    learned.push({ ...parsed, added: now.toISOString(), learned: true });
  }
  if (learned.length === 0 || peers.length + learned.length > MAX_PEERS) return [];
  writePeerBook(home, [...peers, ...learned]);
  return learned;
}

/** Forgets the learned addresses of hubs the roster in force no longer lists (`mayLink` false); kept ones stay. */
export function forgetLearned(home: string, mayLink: (key: string) => boolean): void {
  const peers = readPeerBook(home);
  const left = peers.filter((peer) => !peer.learned || mayLink(peer.key));
  if (left.length < peers.length) writePeerBook(home, left);
}

function writePeerBook(home: string, peers: PeerBookEntry[]): void {
  const doc = parseInput(PeerBookSchema, { peers }, 'peers');
  writeFileAtomically(peerBookFileOf(home), `${JSON.stringify(doc, null, 2)}\n`, PRIVATE_FILE_MODE);
}
