// The hub: one store under one home, held by one process. `openHub` takes the
// home's single-writer lock before it opens the store (hub-parts.ts); `close`
// flushes the last group commit, checkpoints the WAL and releases the lock.
// Participants act through the entries it hands out (Actor, and the peer
// entry), each call passing the one gate made for this hub.

import { DEFAULT_SESSION_NAME } from '../config/defaults.js';
import type { KeyObject } from 'node:crypto';
import type { Config } from '../config/schema.js';
import { ParleyError } from '../errors/parley-error.js';
import type { HomeLock } from '../home/home-lock.js';
import type { Access } from '../schema/access.js';
import type { ParleyEvent } from '../schema/event.js';
import type { JoinInput, Participant } from '../schema/participant.js';
import type { Roster } from '../schema/roster.js';
import type { TokenKind } from '../schema/token.js';
import type { TrustMode } from '../schema/views.js';
import type { Store } from '../store/store.js';
import { signHubProof, type HubProofAnswer } from '../trust/hub-proof.js';
import { formatPublicKey, hubIdOf } from '../trust/node-id.js';
import { rosterFileOf } from '../trust/roster-file.js';
import { Actor } from './actor.js';
import type { Caller } from './records.js';
import { policyRetentionLimits } from './channel-access.js';
import type { HubContext } from './context.js';
import type { EnvelopeGate } from './envelope-gate.js';
import { Gate } from './gate.js';
import { acceptRoster, credentialOf, issueToken, revokeToken, rotateToken, type Credential } from './hub-admin.js';
import { connectedNow, everyParticipant, holderOf, joinSession, memberOf, sessionInfos, sessionNamed, type SessionInfo } from './hub-directory.js';
import { openHubParts, type HubOptions } from './hub-parts.js';
import { dropGhosts } from './meeting-ops.js';
import { setAccessOf } from './participant-views.js';
import { hubNameOf } from './hub-name.js';
import { PeerEntry } from './peer-entry.js';
import { PeerSync } from './peer-sync.js';
import type { PeerLinksView, PeerSelf } from './peer-self.js';
import { RetentionPruner, type PruneReport, type RetentionSeams } from './retention.js';
import type { RosterPushOptions } from './roster-push.js';
import { participantView } from './records.js';
import { inBackground } from '../util/background.js';
import { markStore } from './store-mark.js';

/** The session a participant joins when none is named. */
export const DEFAULT_SESSION = DEFAULT_SESSION_NAME;

export type { Credential } from './hub-admin.js';
export type { SessionInfo } from './hub-directory.js';
export type { PeerLinksView, PeerSelf } from './peer-self.js';
export type { PeerSync, PeerEvent, PeerTaken, PreparedPage, SideStep, OutboundPage, HostedElsewhere, HostingHub, PresenceGossip, ChannelDigest, HistoryAsk, HistoryAuthor, HistoryPage, HistoryStream, HistoryChannel, HistoryGap } from './peer-sync.js';
export type { HubOptions } from './hub-parts.js';
export type { RosterPushOptions } from './roster-push.js';

/** Opens the hub of a home: see hub-parts.ts for what is made, in which order. */
export async function openHub(options: HubOptions): Promise<Hub> {
  const parts = await openHubParts(options);
  return new Hub(parts.home, parts.config, parts.ctx, parts.lock, parts.retention);
}

export class Hub {
  readonly home: string;
  readonly config: Config;
  /** When this hub opened its home, in epoch milliseconds (for `parley status`). */
  readonly openedAt: number;
  readonly #ctx: HubContext;
  readonly #lock: HomeLock;
  /** The entry objects this hub hands out, each passing the one gate made for this hub. */
  #peerLinks: PeerLinksView | undefined;
  readonly #entries: { actor: (caller: Caller) => Actor; peers: PeerEntry };
  readonly #peerSync: PeerSync;
  readonly #sweeper: NodeJS.Timeout;
  readonly #pruner: RetentionPruner;
  /** The roster file: each roster accepted while the hub runs is written there. */
  readonly #rosterFile: string;
  #closed = false;
  #closing: Promise<void> | undefined;

  /** @internal use openHub */
  constructor(home: string, config: Config, ctx: HubContext, lock: HomeLock, retention: RetentionSeams = {}) {
    this.home = home;
    this.config = config;
    this.#ctx = ctx;
    this.#lock = lock;
    this.#rosterFile = rosterFileOf(config.trust.rosterPath, home).file;
    this.openedAt = ctx.now();
    const gate = new Gate(ctx);
    this.#entries = {
      actor: (caller) => new Actor(ctx, gate, { participantId: caller.participant.id, sessionId: caller.session.id }),
      peers: new PeerEntry(ctx, gate),
    };
    this.#peerSync = new PeerSync(ctx, this.#entries.peers, DEFAULT_SESSION);
    // Meeting places of members that are gone (see dropGhosts) are freed within a quarter of the presence TTL,
    // and an agent whose hooks stopped reporting is shown back in its declared state as soon.
    const sweepEvery = Math.max(1000, Math.min(30_000, (config.presence.ttlSeconds * 1000) / 4));
    this.#sweeper = setInterval(() => {
      for (const meeting of ctx.meetings.all()) dropGhosts(ctx, meeting);
      for (const { session, presence } of ctx.presence.expireActivities()) ctx.bus.publish({ kind: 'presence', session, presence });
    }, sweepEvery);
    this.#sweeper.unref();
    // A channel's access policy sets its retention unless the caller plugs in other limits.
    this.#pruner = new RetentionPruner(ctx, { channelLimits: policyRetentionLimits(ctx), ...retention });
    this.#pruner.start();
  }

  get storeFile(): string {
    return this.#ctx.store.file;
  }

  /**
   * Records where this hub serves, so a second hub on the same home can name
   * it, and its public key, with which local clients check its proof (see
   * proveIdentity) before they send it a credential.
   */
  describe(info: { url?: string }): void {
    this.#lock.describe({ ...info, key: formatPublicKey(this.#ctx.keys.hub().raw) });
  }

  /** This hub's answer to POST /hub-proof: its key and its signature over the Host it was asked at and the client's nonce. */
  proveIdentity(host: string, nonce: string): HubProofAnswer {
    const { privateKey, raw } = this.#ctx.keys.hub();
    return { key: formatPublicKey(raw), signature: signHubProof(privateKey, host, nonce) };
  }

  /**
   * This hub as its peers know it: the key pair that is its peer-link
   * identity, the key's text, its id and its name (peers.name, else the
   * machine's host name).
   */
  peerIdentity(): { privateKey: KeyObject; key: string; id: string; name: string } {
    const { privateKey, raw } = this.#ctx.keys.hub();
    return { privateKey, key: formatPublicKey(raw), id: hubIdOf(raw), name: hubNameOf(this.config) };
  }

  /** The running peer node attaches itself here, so the hub's surfaces can say where it listens. */
  attachPeerLinks(view: PeerLinksView | undefined): void {
    this.#peerLinks = view;
  }

  /** The running peer links, if `parley serve` runs them (routes show and change them through this). */
  peerLinks(): PeerLinksView | undefined {
    return this.#peerLinks;
  }

  /** What the peer links use to carry events between this hub and the others of its roster. */
  peerSync(): PeerSync {
    this.#assertOpen();
    return this.#peerSync;
  }

  /** This hub for `parley peer self`: key, id, name, where it listens, and the participants it hosts (not the ones linked hubs host). */
  peerSelf(): PeerSelf {
    const { key, id, name } = this.peerIdentity();
    const participants = everyParticipant(this.#ctx)
      .filter((p) => p.hub === undefined)
      .map((p) => ({ handle: p.handle, key: p.pubkey, kind: p.profile.kind }));
    return { key, id, name, addrs: this.#peerLinks?.addrs() ?? [], participants };
  }

  /**
   * Whether a hub holding this raw public key may link with this one: never
   * in local mode; under a roster, only a key the roster in force lists as a
   * hub (a participant's key never links, nor this hub's own).
   */
  mayLink(publicKeyRaw: Uint8Array): boolean {
    const roster = this.#ctx.rosters.current();
    if (!roster) return false;
    const key = formatPublicKey(publicKeyRaw);
    return key !== formatPublicKey(this.#ctx.keys.hub().raw) && roster.members.some((member) => member.kind === 'hub' && member.pubkey === key);
  }

  // Participants -------------------------------------------------------------

  /** Registers a participant (idempotent) and joins it to a session; its entry. */
  async join(input: JoinInput): Promise<Actor> {
    this.#assertOpen();
    return this.#entries.actor(await joinSession(this.#ctx, input, DEFAULT_SESSION, () => this.#assertOpen()));
  }

  /** An already registered participant acting in a session it has joined. */
  actor(handle: string, session: string = DEFAULT_SESSION): Actor {
    this.#assertOpen();
    return this.#entries.actor(memberOf(this.#ctx, handle, session));
  }

  /**
   * The entry of the participant and session a bearer token names, or
   * undefined for an unknown or revoked token. A closed hub says so
   * (HUB_CLOSED) rather than calling a good token unknown, so that clients
   * retry instead of re-joining.
   */
  authenticate(token: string): Actor | undefined {
    this.#assertOpen();
    const holder = holderOf(this.#ctx, token);
    return holder && this.#entries.actor(holder);
  }

  sessions(): SessionInfo[] {
    return sessionInfos(this.#ctx);
  }

  /** Who is connected now, in every session: each participant whose presence is not offline. */
  connected(): Array<{ session: string; handle: string; connection: string; state: string }> {
    return connectedNow(this.#ctx);
  }

  participants(): Participant[] {
    return [...this.#ctx.state.participants.values()].map(participantView);
  }

  /** Every registered participant with its access now (null: a roster is in force and its key is not in it). */
  participantsWithAccess(): Array<Participant & { pubkey: string; access: Access | null }> {
    return everyParticipant(this.#ctx);
  }

  /** One registered participant by handle (case-insensitive), or undefined. */
  participant(handle: string): Participant | undefined {
    const found = this.#ctx.state.participantByHandle(handle);
    return found ? participantView(found) : undefined;
  }

  /**
   * Calls `listener` with each event committed in a session from now on, until
   * the returned stop or the hub's shutdown: what wakes the coordinator when it
   * runs inside the hub.
   */
  onEvents(session: string, listener: (event: ParleyEvent) => void): () => void {
    this.#assertOpen();
    return this.#ctx.bus.listen(sessionNamed(this.#ctx, session).id, (item) => {
      if (item.kind === 'event') listener(item.event);
    });
  }

  /**
   * Calls `listener` with each participant of a session whose presence turns
   * offline from now on (its last MCP session, stream or wait ended, or its
   * hook's report ran out): what tells the coordinator inside the hub that an
   * agent it left to its own session can now be answered for.
   */
  onOffline(session: string, listener: (participant: string) => void): () => void {
    this.#assertOpen();
    return this.#ctx.bus.listen(sessionNamed(this.#ctx, session).id, (item) => {
      if (item.kind === 'presence' && item.presence.connection === 'offline') listener(item.presence.participant);
    });
  }

  // The owner's surface: tokens, access, the roster (hub-admin.ts) -----------

  /** A new bearer token for a participant of a session (earlier ones still work); a coordinator token is for one adapter run. */
  async issueToken(handle: string, session: string = DEFAULT_SESSION, kind: TokenKind = 'participant'): Promise<string> {
    return issueToken(this.#ctx, this.#holder(handle, session), kind);
  }

  /** Revokes every token of a participant in a session and returns a new one. */
  async rotateToken(handle: string, session: string = DEFAULT_SESSION): Promise<string> {
    return rotateToken(this.#ctx, this.#holder(handle, session));
  }

  /** Revokes one token, leaving the participant's others working (signing a browser out). */
  async revokeToken(token: string): Promise<boolean> {
    this.#assertOpen();
    return revokeToken(this.#ctx, token);
  }

  /** A token's id (its hash) and the signal that aborts when it is revoked. */
  credential(token: string): Credential {
    return credentialOf(this.#ctx, token);
  }

  /** Local mode: sets a participant's access (the admin token's route and CLI); returns the participant with it. */
  async setAccess(handle: string, access: Access): Promise<Participant & { access: Access }> {
    this.#assertOpen();
    return setAccessOf(this.#ctx, handle, access);
  }

  /** Local mode, or the roster in force: how permissions are decided (doctor and status show it). */
  get trust(): TrustMode {
    return this.#ctx.access.trust;
  }

  /** The roster in force (undefined in local mode) and the file it is kept in. */
  roster(): { current: Roster | undefined; chain: readonly Roster[]; file: string } {
    return { current: this.#ctx.rosters.current(), chain: this.#ctx.rosters.chain(), file: this.#rosterFile };
  }

  /** Puts a new roster version in force at once and writes it to the roster file (see hub-admin.ts). */
  async acceptRoster(doc: unknown, options: RosterPushOptions = {}): Promise<{ roster: Roster; file: string; written: boolean }> {
    this.#assertOpen();
    const accepted = await acceptRoster(this.#ctx, this.#rosterFile, doc, options);
    // Links the new version no longer allows close; linked peers hear of it (and fetch it if older).
    if (this.#peerLinks) inBackground(this.#peerLinks.rosterChanged(), this.#ctx.logger, 'telling the peer links of the new roster');
    return accepted;
  }

  // Upkeep and shutdown ------------------------------------------------------

  /** Runs a retention pass now (after any under way): what the timer does every `retention.intervalMs`. */
  prune(): Promise<PruneReport> {
    this.#assertOpen();
    return this.#pruner.prune();
  }

  /** Figures for diagnostics and the benchmark. */
  stats(): { events: number; lastSeq: number; batches: number; writes: number; liveListeners: number; envelopes: ReturnType<EnvelopeGate['stats']> } {
    const { store, state, bus, envelopes } = this.#ctx;
    return {
      envelopes: envelopes.stats(),
      events: store.events.count(),
      lastSeq: state.nextSeq - 1,
      batches: store.writes.stats.batches,
      writes: store.writes.stats.writes,
      liveListeners: bus.listenerCount(),
    };
  }

  integrityCheck(): string {
    return this.#ctx.store.integrityCheck();
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Shuts down: refuses new operations, lets those in flight finish, commits
   * what is pending, ends waits and live streams, closes the store cleanly and
   * releases the home.
   */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweeper);
    // A pass under way stops at its next chunk, before the store closes.
    await this.#pruner.stop();
    const ctx = this.#ctx;
    ctx.lifecycle.closing = true;
    await ctx.lifecycle.drain();
    try {
      // Commit what is pending (and publish it), with the signatures still on the worker, then end waits and streams, then close the files.
      await ctx.sealer.close();
      await ctx.signatureChecks.close();
      ctx.store.writes.flush();
      ctx.bus.close();
      try {
        markStore(this.home, ctx.store);
      } catch (error) {
        ctx.logger.warn('could not record the store mark beside the keys; a later restore from a backup will not be noticed', { error });
      }
      // The last group commit hands its events to the indexer, which then finishes.
      ctx.store.close();
    } finally {
      try {
        await ctx.search.close();
      } finally {
        this.#lock.release();
      }
    }
  }

  /** A participant of a session by its ids, as a token names it. */
  #holder(handle: string, session: string): { participantId: string; sessionId: string } {
    this.#assertOpen();
    const member = memberOf(this.#ctx, handle, session);
    return { participantId: member.participant.id, sessionId: member.session.id };
  }

  #assertOpen(): void {
    if (this.#closed) throw new ParleyError('HUB_CLOSED', 'The hub is closed; open it again to continue.');
  }

  /** @internal for tests and the benchmark in this repository; `peers` is where the peer links will hand envelopes in. */
  get internals(): { ctx: HubContext; store: Store; peers: PeerEntry } {
    return { ctx: this.#ctx, store: this.#ctx.store, peers: this.#entries.peers };
  }
}
