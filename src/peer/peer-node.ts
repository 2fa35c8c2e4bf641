// Before libp2p, which calls Promise.withResolvers (Node 22+) and is loaded below.
import './promise-with-resolvers.js';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { identify } from '@libp2p/identify';
import type { Connection, PeerId, StreamHandler } from '@libp2p/interface';
import type { mdns as MdnsFactory } from '@libp2p/mdns';
import { multiaddr } from '@multiformats/multiaddr';
import { ping } from '@libp2p/ping';
import { tcp } from '@libp2p/tcp';
import { createLibp2p, type Libp2p } from 'libp2p';
import { ParleyError } from '../errors/parley-error.js';
import { formatPublicKey } from '../trust/node-id.js';
import type { Hub } from '../hub/index.js';
import type { Logger } from '../util/logger.js';
import { libp2pKeyOf } from './peer-identity.js';

export interface PeerNodeOptions {
  hub: Hub;
  /** Multiaddrs to listen on (config peers.listen); none: the node only dials. */
  listen: readonly string[];
  logger: Logger;
  /** Told of each key the gater refuses (the links count it against that peer). */
  onRefused?: (key: string, reason: RefusalReason) => void;
  /** Whether the operator blocked the hub holding a key for now (peer-blocks.ts): refused as `blocked`. */
  isBlocked?: (key: string) => boolean;
  /** Told when the last connection to a peer closes. */
  onDisconnected?: (key: string) => void;
  /** Look for hubs on the LAN by mDNS (config peers.mdns); `port` and `interval` only for tests. */
  mdns?: false | { port?: number; intervalMs?: number };
  /** Told of each hub mDNS finds (its key and the addresses it announced). */
  onDiscovered?: (key: string, addrs: string[]) => void;
}

/** Why a connection was refused before any Parley protocol ran, counted for `parley peer list` and status. */
export type RefusalReason = 'local-mode' | 'not-in-roster' | 'blocked';

async function mdnsDiscovery(options: { port?: number; intervalMs?: number }): Promise<ReturnType<typeof MdnsFactory>> {
  const { mdns } = await import('@libp2p/mdns');
  return mdns({ serviceTag: MDNS_SERVICE_TAG, ...(options.port === undefined ? {} : { port: options.port }), ...(options.intervalMs === undefined ? {} : { interval: options.intervalMs }) });
}

/** What Parley hubs announce themselves as on the LAN (not libp2p's default, so other libp2p nodes are not found). */
export const MDNS_SERVICE_TAG = '_parley._udp.local';

/** The hub key (`ed25519:…`) a libp2p peer id stands for, if it is an Ed25519 one. */
export function keyOfPeer(peerId: PeerId): string | undefined {
  const raw = peerId.type === 'Ed25519' ? peerId.publicKey.raw : undefined;
  return raw === undefined ? undefined : formatPublicKey(raw);
}

/**
 * The hub's libp2p node: TCP, Noise (always), yamux, identify and ping, with
 * the hub's own Ed25519 key as its identity. Its connection gater refuses
 * every key the roster in force does not list, once Noise has proved which
 * key the other side holds and before any protocol runs; in local mode it
 * refuses every connection. The Parley protocols ride on top (next).
 */
export class PeerNode {
  readonly #node: Libp2p;
  readonly #refused: Map<RefusalReason, number>;

  private constructor(node: Libp2p, refused: Map<RefusalReason, number>) {
    this.#node = node;
    this.#refused = refused;
  }

  static async start({ hub, listen, logger, onRefused, isBlocked, onDisconnected, mdns: lan = false, onDiscovered }: PeerNodeOptions): Promise<PeerNode> {
    const identity = hub.peerIdentity();
    const refused = new Map<RefusalReason, number>();
    const refuses = (peerId: PeerId): boolean => {
      const raw = peerId.publicKey?.raw;
      const key = keyOfPeer(peerId);
      const blocked = key !== undefined && isBlocked?.(key) === true;
      const reason: RefusalReason | undefined = hub.trust.mode === 'local' ? 'local-mode' : raw === undefined || !hub.mayLink(raw) ? 'not-in-roster' : blocked ? 'blocked' : undefined;
      if (reason === undefined) return false;
      refused.set(reason, (refused.get(reason) ?? 0) + 1);
      logger.warn('peer link refused', { peer: peerId.toString(), reason });
      if (key !== undefined) onRefused?.(key, reason);
      return true;
    };
    let libp2p: Libp2p;
    try {
      libp2p = await createLibp2p({
        privateKey: await libp2pKeyOf(identity.privateKey),
        addresses: { listen: [...listen] },
        transports: [tcp()],
        connectionEncrypters: [noise()],
        streamMuxers: [yamux()],
        services: { identify: identify(), ping: ping() },
        // Loaded only by a hub that looks for others on its LAN.
        peerDiscovery: lan ? [await mdnsDiscovery(lan)] : [],
        connectionGater: {
          denyInboundEncryptedConnection: refuses,
          denyOutboundEncryptedConnection: refuses,
        },
      });
    } catch (error) {
      throw new ParleyError('CONFIG_INVALID', `The peer listener could not start on ${listen.join(', ')}: ${(error as Error).message}. Check peers.listen (or --peer-port and --peer-host).`, {
        field: 'peers.listen',
        cause: error,
      });
    }
    libp2p.addEventListener('peer:disconnect', (event) => {
      const key = keyOfPeer(event.detail);
      if (key !== undefined) onDisconnected?.(key);
    });
    libp2p.addEventListener('peer:discovery', (event) => {
      const key = keyOfPeer(event.detail.id);
      if (key !== undefined) onDiscovered?.(key, event.detail.multiaddrs.map((addr) => addr.encapsulate(`/p2p/${event.detail.id.toString()}`).toString()));
    });
    return new PeerNode(libp2p, refused);
  }

  /** Serves a Parley protocol; every stream of it gets a reader at once (an unread stream buffers, then resets). */
  async handle(protocol: string, handler: StreamHandler): Promise<void> {
    await this.#node.handle(protocol, handler);
  }

  /** A connection to the hub at one of `addrs` (the gater has let it through: its key is a hub of the roster). */
  dial(addrs: readonly string[], signal: AbortSignal): Promise<Connection> {
    return this.#node.dial(
      addrs.map((addr) => multiaddr(addr)),
      { signal },
    );
  }

  /** Closes every connection to the hub at the other end of `connection`. */
  async hangUp(connection: Connection): Promise<void> {
    await this.#node.hangUp(connection.remotePeer);
  }

  /** This hub's libp2p peer id (derived from its key). */
  get peerId(): string {
    return this.#node.peerId.toString();
  }

  /** Where peers can dial this hub, each ending in /p2p/<peer id>. */
  addrs(): string[] {
    return this.#node.getMultiaddrs().map((address) => address.toString());
  }

  /** Connections refused so far, by reason. */
  refusals(): Record<RefusalReason, number> {
    return { 'local-mode': this.#refused.get('local-mode') ?? 0, 'not-in-roster': this.#refused.get('not-in-roster') ?? 0, blocked: this.#refused.get('blocked') ?? 0 };
  }

  async stop(): Promise<void> {
    await this.#node.stop();
  }
}
