/**
 * The roster over a link (`/parley/roster/1`): a hub whose peer's hello
 * names a newer roster version asks for it, and the peer sends the roster it
 * holds in force, as JSON. What is taken is decided by the roster's own rules
 * (hub.acceptRoster with `from: 'peer'`), never by the link.
 */

import type { Connection, Stream } from '@libp2p/interface';
import { lpStream } from '@libp2p/utils';
import type { Hub } from '../hub/index.js';
import type { Roster } from '../schema/roster.js';

export const ROSTER_PROTOCOL = '/parley/roster/1';
/** A roster as a peer sends it (JSON) is at most this large. */
const MAX_ROSTER_BYTES = 4 * 1024 * 1024;

/** Answers a peer's ask with the roster in force (null in local mode, which never links). */
export async function sendRoster(hub: Hub, stream: Stream, timeoutMs: number): Promise<void> {
  const framed = lpStream(stream, { maxDataLength: MAX_ROSTER_BYTES });
  await framed.write(Buffer.from(JSON.stringify(hub.roster().current ?? null)), { signal: AbortSignal.timeout(timeoutMs) });
  await stream.close();
}

/** Asks the peer on `connection` for its roster and hands it to the hub; the roster now in force, or the hub's refusal. */
export async function fetchRoster(hub: Hub, connection: Connection, timeoutMs: number): Promise<Roster> {
  const signal = AbortSignal.timeout(timeoutMs);
  const stream = await connection.newStream(ROSTER_PROTOCOL, { signal });
  const framed = lpStream(stream, { maxDataLength: MAX_ROSTER_BYTES });
  const bytes = (await framed.read({ signal })).subarray();
  await stream.close();
  const { roster } = await hub.acceptRoster(JSON.parse(Buffer.from(bytes).toString('utf8')), { from: 'peer' });
  return roster;
}
