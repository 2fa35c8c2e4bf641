/**
 * Presence over the links (`/parley/presence/1`): each hub tells its linked
 * hubs the presence of the participants it hosts — all of it when a link
 * comes up and again before the presence TTL runs out, and each change as it
 * happens (gathered for a moment) — in one frame per stream, stamped with a
 * seq that only grows, so the latest word wins. Gossip, not a log: what is
 * missed is told again; nothing of it is stored.
 */

import type { Connection, Stream } from '@libp2p/interface';
import { lpStream } from '@libp2p/utils';
import { z } from 'zod';
import type { PeerSync, PresenceGossip } from '../hub/index.js';
import { PRESENCE_STATES } from '../schema/inputs.js';
import { canonicalEncode, decodeStrict } from '../trust/cbor.js';
import { inBackground, settled } from '../util/background.js';
import type { Logger } from '../util/logger.js';
import { BadFrame } from './event-frames.js';
import { linkedPeerOf, type EventLinkHooks } from './event-stream.js';

export const PRESENCE_PROTOCOL = '/parley/presence/1';
const PRESENCE_DOMAIN = 'parley/presence/v1';
const MAX_PRESENCE_FRAME_BYTES = 2 * 1024 * 1024;
const MAX_PRESENCE_ITEMS = 10_000;
/** Changes are gathered this long before they go out. */
const GATHER_MS = 20;

const Item = z.tuple([
  z.instanceof(Uint8Array).refine((key) => key.length === 32, 'must be a 32-byte key'),
  z.string().min(1).max(200),
  z.enum(PRESENCE_STATES),
  z.enum(['connected', 'waiting', 'offline']),
  z.number().int().min(0),
  z.string().max(2000).nullable(),
]);
const Frame = z.tuple([z.literal(PRESENCE_DOMAIN), z.number().int().min(0), z.array(Item).max(MAX_PRESENCE_ITEMS)]);

export function encodePresence(seq: number, items: readonly PresenceGossip[]): Uint8Array {
  return canonicalEncode([PRESENCE_DOMAIN, seq, items.map((i) => [i.key, i.session, i.state, i.connection, i.lastSeen, i.note])], 'presence frame');
}

export function decodePresence(bytes: Uint8Array): { seq: number; items: PresenceGossip[] } {
  try {
    const [, seq, items] = Frame.parse(decodeStrict(bytes, { maxBytes: MAX_PRESENCE_FRAME_BYTES, what: 'presence frame' }));
    return { seq, items: items.map(([key, session, state, connection, lastSeen, note]) => ({ key, session, state, connection, lastSeen, note })) };
  } catch (error) {
    throw new BadFrame(`bad presence frame (${error instanceof z.ZodError ? (error.issues[0]?.message ?? 'malformed') : (error as Error).message})`);
  }
}

/** Tells every linked hub the presence of this hub's participants. */
export class PresenceTeller {
  readonly #sync: PeerSync;
  readonly #logger: Logger;
  readonly #links = new Map<string, Connection>();
  readonly #unlisten: () => void;
  readonly #heartbeat: NodeJS.Timeout;
  #gathered: PresenceGossip[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(sync: PeerSync, logger: Logger, ttlMs: number) {
    this.#sync = sync;
    this.#logger = logger;
    this.#unlisten = sync.onLocalPresence((gossip) => this.#gather(gossip));
    // Told again before a peer's TTL runs out, so a participant present for long stays shown present there.
    this.#heartbeat = setInterval(() => {
      for (const [key, connection] of this.#links) this.#tell(key, connection, sync.localPresence());
    }, Math.max(1000, ttlMs / 3));
    this.#heartbeat.unref();
  }

  linked(key: string, connection: Connection): void {
    if (this.#links.get(key) === connection) return;
    this.#links.set(key, connection);
    this.#tell(key, connection, this.#sync.localPresence());
  }

  unlinked(key: string): void {
    this.#links.delete(key);
    this.#sync.hubDown(key);
  }

  stop(): void {
    this.#unlisten();
    clearInterval(this.#heartbeat);
    clearTimeout(this.#timer);
    this.#links.clear();
  }

  #gather(gossip: PresenceGossip): void {
    this.#gathered.push(gossip);
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      const items = this.#gathered;
      this.#gathered = [];
      for (const [key, connection] of this.#links) this.#tell(key, connection, items);
    }, GATHER_MS);
  }

  #tell(key: string, connection: Connection, items: PresenceGossip[]): void {
    if (items.length === 0) return;
    const frame = encodePresence(this.#sync.nextPresenceSeq(), items.slice(0, MAX_PRESENCE_ITEMS));
    const send = async (): Promise<void> => {
      const stream = await connection.newStream(PRESENCE_PROTOCOL, { signal: AbortSignal.timeout(10_000) });
      await lpStream(stream, { maxDataLength: MAX_PRESENCE_FRAME_BYTES }).write(frame, { signal: AbortSignal.timeout(10_000) });
      await stream.close();
    };
    // A word lost with its link is told again when the link is back.
    inBackground(send(), this.#logger, `telling peer ${key} of presence`);
  }
}

/** Reads one presence frame from a linked hub and takes it; a bad one resets the stream and is counted. */
export async function receivePresence(stream: Stream, connection: Connection, hooks: EventLinkHooks): Promise<void> {
  const key = await linkedPeerOf(stream, connection, hooks);
  if (key === undefined) return;
  try {
    const { seq, items } = decodePresence((await lpStream(stream, { maxDataLength: MAX_PRESENCE_FRAME_BYTES }).read({ signal: AbortSignal.timeout(10_000) })).subarray());
    hooks.heard(key);
    hooks.sync.takePresence(key, seq, items);
    await settled(stream.close());
  } catch (error) {
    hooks.countDrop(key, 'malformed-frame');
    hooks.logger.warn('a presence frame from a peer was refused; its stream is reset', { peer: key, error: (error as Error).message });
    stream.abort(error as Error);
  }
}
