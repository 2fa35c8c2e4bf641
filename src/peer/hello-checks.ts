/**
 * What a hub says in its hello and what it requires of a peer's: the hello
 * this hub sends a given peer, the checks a peer's hello must pass against the
 * roster in force, and why a hello exchange failed, as counted.
 */

import type { Hub } from '../hub/index.js';
import { parsePublicKey } from '../trust/node-id.js';
import { decodeHello, encodeHello, HelloRefused, type Hello } from './hello.js';
import type { DropReason } from './link-table.js';

/** A hello that checked out, from a hub this one does not link with. */
export class LinkRefused extends Error {
  constructor(
    readonly reason: DropReason,
    message: string,
  ) {
    super(message);
    this.name = 'LinkRefused';
  }
}

/** Why a hello exchange failed, as counted: the refusal's own reason, a timeout, or a frame that could not be read (too long, cut short). */
export function dropReasonOf(error: unknown): DropReason {
  if (error instanceof LinkRefused || error instanceof HelloRefused) return error.reason;
  const name = (error as Error | undefined)?.name;
  return name === 'AbortError' || name === 'TimeoutError' ? 'hello-timeout' : 'malformed-frame';
}

/** Why a hello exchange failed, in words for `peer list`: `side` is whether this hub dialled or answered. */
export function refusalWords(error: unknown, side: 'dialled' | 'answered'): string {
  if (error instanceof LinkRefused || error instanceof HelloRefused) return error.message;
  const message = (error as Error).message;
  // A peer whose gater refuses this hub closes the connection once Noise is done: no hello comes.
  if (side === 'dialled') return `no hello from the peer (${message}): it may not list this hub in its roster`;
  return `${dropReasonOf(error) === 'hello-timeout' ? 'no hello in time' : 'an unreadable hello frame'} (${message})`;
}

/** The hello in `frame` from `key`, checked against the hub's roster; LinkRefused or HelloRefused says why not. */
export function checkHello(hub: Hub, frame: Uint8Array, key: string, now: number): Hello {
  const hello = decodeHello(frame, { from: parsePublicKey(key), self: parsePublicKey(hub.peerIdentity().key), now });
  const roster = hub.roster().current;
  if (!roster) throw new LinkRefused('local-mode', 'this hub has no roster in force (local mode): it never links');
  if (hello.org !== roster.org_id) throw new LinkRefused('other-org', `it is a hub of org "${hello.org}", this hub's roster is org "${roster.org_id}"`);
  if (!hub.mayLink(hello.key)) throw new LinkRefused('not-in-roster', `its key is not a hub of roster ${roster.org_id} v${roster.version}`);
  return hello;
}

/** The signed hello this hub sends to the hub holding `key`; `known` are the other hubs it is linked to, with where they listen. */
export function helloFor(hub: Hub, key: string, where: { addrs: string[]; known: Array<{ key: string; addrs: string[] }>; now: number }): Uint8Array {
  const identity = hub.peerIdentity();
  const roster = hub.roster().current;
  if (!roster) throw new LinkRefused('local-mode', 'this hub has no roster in force (local mode): it never links');
  const self = hub.peerSelf();
  const known = where.known
    .filter((other) => other.key !== key && other.addrs.length > 0)
    .map((other) => ({ key: parsePublicKey(other.key), addrs: other.addrs.slice(0, 16) }))
    .slice(0, 256);
  const hello: Hello = {
    org: roster.org_id,
    rosterVersion: roster.version,
    key: parsePublicKey(identity.key),
    name: identity.name.slice(0, 64),
    to: parsePublicKey(key),
    ts: where.now,
    participants: self.participants.map((p) => ({ key: parsePublicKey(p.key), handle: p.handle, kind: p.kind })),
    addrs: where.addrs.slice(0, 16),
    known,
  };
  return encodeHello(hello, identity.privateKey);
}

