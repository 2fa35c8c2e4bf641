import path from 'node:path';
import { DEFAULT_SESSION_NAME, HOOK_TRACKED_CLIENT_SESSIONS, REDACTION_NOTE, SEARCH_FILENAME, STORE_FILENAME } from '../config/defaults.js';
import { parseConfig } from '../config/load.js';
import type { Config, ConfigInput } from '../config/schema.js';
import { ParleyError, parseInput, toParleyError } from '../errors/parley-error.js';
import { MeetingRegistry } from '../meeting/meeting-registry.js';
import { createRedactor } from '../redaction/redactor.js';
import type { SecretScanner } from '../redaction/scanner.js';
import type { ParleyEvent } from '../schema/event.js';
import { JoinInputSchema, type JoinInput, type Participant } from '../schema/participant.js';
import { HandleSchema, SessionNameSchema } from '../schema/names.js';
import { SearchIndex, type SearchDoc, type SearchSource } from '../search/search-index.js';
import { acquireHomeLock, type HomeLock } from '../home/home-lock.js';
import { makeHomePrivate } from '../home/private-home.js';
import { rowToEvent } from '../store/event-log.js';
import { KeyRing } from '../trust/key-ring.js';
import { formatPublicKey } from '../trust/node-id.js';
import { signHubProof, type HubProofAnswer } from '../trust/hub-proof.js';
import { EventSealer } from './event-sealer.js';
import { RosterBook, rosterViewOf } from './roster-book.js';
import { loadRosterAtStart } from './roster-startup.js';
import { assertDropsConfirmed, assertMayPush, type RosterPushOptions } from './roster-push.js';
import { rosterFileOf, writeRosterFile } from '../trust/roster-file.js';
import type { Roster } from '../schema/roster.js';
import type { TokenKind } from '../schema/token.js';
import { markStore, storeWentBack } from './store-mark.js';
import { EnvelopeGate } from './envelope-gate.js';
import { openStore, type Store } from '../store/store.js';
import { ulidFactory } from '../util/ids.js';
import { createStderrLogger, type Logger } from '../util/logger.js';
import { AccessResolver, type RosterView } from './access-resolver.js';
import type { TrustMode } from '../schema/views.js';
import type { Access } from '../schema/access.js';
import { Actor } from './actor.js';
import { redactInput } from './authored-input.js';
import type { Caller } from './caller.js';
import type { HubContext } from './context.js';
import { Gate } from './gate.js';
import { PeerEntry } from './peer-entry.js';
import { ensureParticipant, ensureSession, enterSession } from './directory.js';
import { Lifecycle } from './lifecycle.js';
import { LiveBus } from './live-bus.js';
import { dropGhosts } from './meeting-ops.js';
import { PresenceTracker } from './presence.js';
import { StopContinuations } from './stop-continuations.js';
import { HubState, participantView } from './state.js';
import { setAccessOf } from './participant-views.js';
import { RateLimiter } from './rate-limit.js';
import { ReadGate } from './read-gate.js';
import { policyRetentionLimits } from './channel-access.js';
import { RetentionPruner, type PruneReport, type RetentionSeams } from './retention.js';
import { TokenRegistry, hashToken } from './tokens.js';
import { searchDocOf, transact } from './writer.js';

/**
 * The hub: one store under one home, held by one process. `openHub` takes the
 * home's single-writer lock before it opens the store; `close` flushes the last
 * group commit, checkpoints the WAL and releases the lock.
 */
export const DEFAULT_SESSION = DEFAULT_SESSION_NAME;

export type { RosterPushOptions } from './roster-push.js';

export interface HubOptions {
  /** The home directory; the store and the lock live here. */
  home: string;
  /** Validated configuration, or a partial one to validate (defaults fill the rest). */
  config?: Config | ConfigInput;
  logger?: Logger;
  /** Clock in epoch milliseconds (tests may pass their own). */
  now?: () => number;
  /** A secret scanner to use instead of the compiled-in one (tests). */
  scanner?: SecretScanner;
  /**
   * Whether events are signed as they are appended (default true). Only the
   * benchmark turns it off, to measure what signing costs; a hub that does not
   * sign writes events that no export can vouch for.
   */
  signEvents?: boolean;
  /** Where channel policies and the roster's archive mark set retention (the config's limits otherwise). */
  retention?: RetentionSeams;
  /**
   * Tests only: a roster view to use instead of the one the hub would load
   * (from its store and the roster file; see loadRosterAtStart).
   */
  roster?: RosterView;
}

/** What a request authenticated with a token holds of it: the token's hash, and whether it is still valid. */
export interface Credential {
  id: string;
  revoked: AbortSignal;
}

export interface SessionInfo {
  id: string;
  name: string;
  createdAt: string;
  participants: number;
}

export class Hub {
  readonly home: string;
  readonly config: Config;
  readonly #ctx: HubContext;
  readonly #lock: HomeLock;
  /** The entry objects this hub hands out, each passing the one gate made for this hub. */
  readonly #entries: { actor: (caller: Caller) => Actor; peers: PeerEntry };
  readonly #sweeper: NodeJS.Timeout;
  readonly #pruner: RetentionPruner;
  /** The roster file: each roster accepted while the hub runs is written there. */
  readonly #rosterFile: string;
  /** When this hub opened its home, in epoch milliseconds (for `parley status`). */
  readonly openedAt: number;
  #closed = false;
  #closing: Promise<void> | undefined;

  /** @internal use openHub */
  constructor(home: string, config: Config, ctx: HubContext, lock: HomeLock, retention: RetentionSeams = {}) {
    this.home = home;
    this.#rosterFile = rosterFileOf(config.trust.rosterPath, home).file;
    this.config = config;
    this.#ctx = ctx;
    this.#lock = lock;
    const gate = new Gate(ctx);
    this.#entries = {
      actor: (caller) => new Actor(ctx, gate, { participantId: caller.participant.id, sessionId: caller.session.id }),
      peers: new PeerEntry(ctx, gate),
    };
    this.openedAt = ctx.now();
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

  /** Runs a retention pass now (after any under way): what the timer does every `retention.intervalMs`. */
  prune(): Promise<PruneReport> {
    this.#assertOpen();
    return this.#pruner.prune();
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
   * Registers a participant (idempotent: the same handle gets the same
   * identity; a given profile updates it) and joins them to a session.
   */
  async join(input: JoinInput): Promise<Actor> {
    this.#assertOpen();
    const parsed = parseInput(JoinInputSchema, input);
    const sessionName = parseInput(SessionNameSchema, parsed.session ?? DEFAULT_SESSION, 'session');
    const ctx = this.#ctx;
    const profile = (await redactInput(ctx, parsed.profile)).value;
    this.#assertOpen();
    const caller = await ctx.lifecycle.track(
      transact(ctx, (tx) => {
        const session = ensureSession(ctx, sessionName);
        const participant = ensureParticipant(ctx, parsed.handle, profile);
        enterSession(ctx, tx, session, participant);
        return { session, participant };
      }),
    );
    return this.#actorOf(caller);
  }

  /**
   * A new bearer token for a participant of a session (they keep any earlier
   * ones). The plaintext is returned once; the hub keeps only its hash. A
   * token of the coordinator kind is for one adapter run (see TokenKindSchema).
   */
  async issueToken(handle: string, session: string = DEFAULT_SESSION, kind: TokenKind = 'participant'): Promise<string> {
    const actor = this.actor(handle, session);
    const caller = { participantId: actor.participant.id, sessionId: actor.session.id };
    const { value, committed } = this.#ctx.store.writes.write(() => this.#ctx.tokens.issue(caller, this.#ctx.now(), kind));
    await committed;
    return value;
  }

  /** Revokes every token of a participant in a session and returns a new one. */
  async rotateToken(handle: string, session: string = DEFAULT_SESSION): Promise<string> {
    const actor = this.actor(handle, session);
    const caller = { participantId: actor.participant.id, sessionId: actor.session.id };
    const { value, committed } = this.#ctx.store.writes.write(() => {
      this.#ctx.tokens.revoke(caller);
      return this.#ctx.tokens.issue(caller, this.#ctx.now());
    });
    await committed;
    return value;
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

  /**
   * Accepts a new roster version (admin-signed, same org, newer: see
   * acceptRoster; refusals store nothing) and puts it in force at once:
   * access is decided by it from the next call, and live MCP tool lists
   * change now. It is then written to the roster file, so a restart loads
   * the same version; `written` says whether that worked (the roster is in
   * force either way, kept in the store). A first roster only from the
   * owner, and a version that leaves out members holding live sessions only
   * with `confirm` (see roster-push.ts).
   */
  async acceptRoster(doc: unknown, options: RosterPushOptions = {}): Promise<{ roster: Roster; file: string; written: boolean }> {
    this.#assertOpen();
    assertMayPush(this.#ctx, options.from ?? 'owner');
    const vet = (current: Roster | undefined, next: Roster): void => assertDropsConfirmed(this.#ctx, current, next, options.confirm === true);
    const roster = await this.#ctx.lifecycle.track(this.#ctx.rosters.accept(doc, this.#ctx.now(), vet));
    this.#ctx.access.useRoster(rosterViewOf(roster));
    this.#ctx.logger.info('roster accepted', { org: roster.org_id, version: roster.version, members: roster.members.length });
    try {
      writeRosterFile(this.#rosterFile, roster);
      return { roster, file: this.#rosterFile, written: true };
    } catch (error) {
      this.#ctx.logger.error('the accepted roster is in force but could not be written to its file', { file: this.#rosterFile, error });
      return { roster, file: this.#rosterFile, written: false };
    }
  }

  /** Revokes one token, leaving the participant's others working (signing a browser out). */
  async revokeToken(token: string): Promise<boolean> {
    this.#assertOpen();
    if (!this.#ctx.tokens.lookup(token)) return false;
    const { value, committed } = this.#ctx.store.writes.write(() => this.#ctx.tokens.revokeOne(token));
    await committed;
    return value;
  }

  /**
   * The participant and session a bearer token names, or undefined for an
   * unknown or revoked token. A closed hub says so (HUB_CLOSED) rather than
   * calling a good token unknown, so that clients retry instead of re-joining.
   */
  authenticate(token: string): Actor | undefined {
    this.#assertOpen();
    const caller = this.#ctx.tokens.lookup(token);
    if (!caller) return undefined;
    const participant = this.#ctx.state.participants.get(caller.participantId);
    const session = this.#ctx.state.sessions.get(caller.sessionId);
    if (!participant || !session) return undefined;
    return this.#actorOf({ participant, session });
  }

  /** A token's id (its hash) and the signal that aborts when it is revoked (see TokenRegistry.revocationSignal). */
  credential(token: string): Credential {
    const id = hashToken(token);
    return { id, revoked: this.#ctx.tokens.revocationSignal(id) };
  }

  /** An already registered participant acting in a session they have joined. */
  actor(handle: string, session: string = DEFAULT_SESSION): Actor {
    this.#assertOpen();
    const handleName = parseInput(HandleSchema, handle, 'handle');
    const sessionName = parseInput(SessionNameSchema, session, 'session');
    const sessionRecord = this.#ctx.state.sessionByName(sessionName);
    if (!sessionRecord) {
      throw new ParleyError('NOT_FOUND', `No session "${sessionName}" on this hub; join it first to create it.`, { field: 'session' });
    }
    const participant = this.#ctx.state.participantByHandle(handleName);
    if (!participant || !sessionRecord.members.has(participant.id)) {
      throw new ParleyError('NOT_FOUND', `"@${handleName}" has not joined session "${sessionName}"; join first.`, { field: 'handle' });
    }
    return this.#actorOf({ participant, session: sessionRecord });
  }

  /**
   * Calls `listener` with each event committed in a session from now on, until
   * the returned stop or the hub's shutdown: what wakes the coordinator when it
   * runs inside the hub.
   */
  onEvents(session: string, listener: (event: ParleyEvent) => void): () => void {
    this.#assertOpen();
    const sessionName = parseInput(SessionNameSchema, session, 'session');
    const record = this.#ctx.state.sessionByName(sessionName);
    if (!record) throw new ParleyError('NOT_FOUND', `No session "${sessionName}" on this hub; join it first to create it.`, { field: 'session' });
    return this.#ctx.bus.listen(record.id, (item) => {
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
    const sessionName = parseInput(SessionNameSchema, session, 'session');
    const record = this.#ctx.state.sessionByName(sessionName);
    if (!record) throw new ParleyError('NOT_FOUND', `No session "${sessionName}" on this hub; join it first to create it.`, { field: 'session' });
    return this.#ctx.bus.listen(record.id, (item) => {
      if (item.kind === 'presence' && item.presence.connection === 'offline') listener(item.presence.participant);
    });
  }

  sessions(): SessionInfo[] {
    return [...this.#ctx.state.sessions.values()].map((s) => ({
      id: s.id,
      name: s.name,
      createdAt: new Date(s.createdAt).toISOString(),
      participants: s.members.size,
    }));
  }

  /** Who is connected now, in every session: each participant whose presence is not offline. */
  connected(): Array<{ session: string; handle: string; connection: string; state: string }> {
    return [...this.#ctx.state.sessions.values()].flatMap((session) =>
      this.#ctx.presence
        .list(session.id)
        .filter((presence) => presence.connection !== 'offline')
        .map((presence) => ({ session: session.name, handle: presence.handle, connection: presence.connection, state: presence.state })),
    );
  }

  participants(): Participant[] {
    return [...this.#ctx.state.participants.values()].map(participantView);
  }

  /** Every registered participant with its access now (null: a roster is in force and its key is not in it). */
  participantsWithAccess(): Array<Participant & { pubkey: string; access: Access | null }> {
    return [...this.#ctx.state.participants.values()].map((p) => ({ ...participantView(p), access: this.#ctx.access.accessOf(p) ?? null }));
  }

  /** One registered participant by handle (case-insensitive), or undefined. */
  participant(handle: string): Participant | undefined {
    const found = this.#ctx.state.participantByHandle(handle);
    return found ? participantView(found) : undefined;
  }

  /** Figures for diagnostics and the benchmark. */
  stats(): { events: number; lastSeq: number; batches: number; writes: number; liveListeners: number; envelopes: ReturnType<EnvelopeGate['stats']> } {
    const { store, state, bus } = this.#ctx;
    return {
      envelopes: this.#ctx.envelopes.stats(),
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
    this.#ctx.lifecycle.closing = true;
    await this.#ctx.lifecycle.drain();
    try {
      // Commit what is pending (and publish it), with the signatures still on the worker, then end waits and streams, then close the files.
      await this.#ctx.sealer.close();
      this.#ctx.store.writes.flush();
      this.#ctx.bus.close();
      try {
        markStore(this.home, this.#ctx.store);
      } catch (error) {
        this.#ctx.logger.warn('could not record the store mark beside the keys; a later restore from a backup will not be noticed', { error });
      }
      // The last group commit hands its events to the indexer, which then finishes.
      this.#ctx.store.close();
    } finally {
      try {
        await this.#ctx.search.close();
      } finally {
        this.#lock.release();
      }
    }
  }

  /** The entry of a participant in a session: every call of it passes the hub's gate. */
  #actorOf(caller: Caller): Actor {
    return this.#entries.actor(caller);
  }

  #assertOpen(): void {
    if (this.#closed) throw new ParleyError('HUB_CLOSED', 'The hub is closed; open it again to continue.');
  }

  /** @internal for tests and the benchmark in this repository; `peers` is where the peer links will hand envelopes in. */
  get internals(): { ctx: HubContext; store: Store; peers: PeerEntry } {
    return { ctx: this.#ctx, store: this.#ctx.store, peers: this.#entries.peers };
  }
}

export async function openHub(options: HubOptions): Promise<Hub> {
  const config = parseConfig(options.config, () => 'the options given to openHub');
  // A home given as anything but a path (an object stringifies to "[object Object]") would put a store in the working directory.
  if (typeof options.home !== 'string' || options.home.trim() === '') {
    throw new ParleyError('INVALID_INPUT', `Invalid home: give the home directory as a path string (got ${typeof options.home === 'string' ? 'an empty string' : typeof options.home}).`, {
      field: 'home',
    });
  }
  const home = path.resolve(options.home);
  const logger = options.logger ?? createStderrLogger();
  const now = options.now ?? Date.now;
  // A full, read-only or forbidden home is named as such (STORAGE_UNAVAILABLE), never as a bug.
  const place = `the home ${home}`;
  let lock: HomeLock;
  let privacyWarning: string | undefined;
  try {
    privacyWarning = makeHomePrivate(home).warning;
    // The lock comes first: a refused hub never opens the store.
    lock = acquireHomeLock(home);
  } catch (error) {
    throw toParleyError(error, place);
  }
  let store: Store | undefined;
  let search: SearchIndex | undefined;
  try {
    const stateRef: { current?: HubState } = {};
    const tokensRef: { current?: TokenRegistry } = {};
    store = openStore({
      file: path.join(home, STORE_FILENAME),
      synchronous: config.store.synchronous,
      onBatchFailed: (error) => {
        logger.error('store batch failed to commit; reloading state', { error });
        stateRef.current?.reload();
        tokensRef.current?.reload();
      },
      onCallbackFailed: (error) => logger.error('an after-commit observer failed', { error }),
    });
    const state = new HubState(store);
    stateRef.current = state;
    // The hub's own key is made (or read) at start: a key file others can read stops the hub here, saying so.
    const keys = new KeyRing(home);
    keys.hub();
    const wentBack = storeWentBack(home, store);
    if (wentBack) {
      logger.warn('the store has fewer events than when this home last closed (restored from a backup?): every author gets a new sender epoch', wentBack);
      store.senders.forgetEpochs();
    }
    const redactorOptions = {
      scannerEnabled: config.chat.scanner.enabled,
      scannerTimeoutMs: config.chat.scanner.timeoutMs,
      logger,
      ...(options.scanner ? { scanner: options.scanner } : {}),
    };
    const redactor = createRedactor({ ...redactorOptions, maxMessageChars: config.chat.limits.maxMessageChars });
    const meetingRedactor = createRedactor({ ...redactorOptions, maxMessageChars: config.meeting.maxMessageChars });
    const tokens = new TokenRegistry(store);
    tokensRef.current = tokens;
    // Run tokens live no longer than their runs: none of an earlier life of the hub (one killed before it could revoke them) stays valid.
    const { value: leftOver } = store.writes.write(() => tokens.revokeKind('coordinator'));
    store.writes.flush();
    if (leftOver > 0) logger.info('revoked the coordinator run tokens left from before this start', { tokens: leftOver });
    const access = new AccessResolver(config, store, state, options.roster);
    const rosters = new RosterBook(store);
    const inForce = await loadRosterAtStart(rosters, rosterFileOf(config.trust.rosterPath, home), now(), logger);
    if (!options.roster && inForce) access.useRoster(rosterViewOf(inForce));
    search = await SearchIndex.start(path.join(home, SEARCH_FILENAME), logger, searchSource(store, state));
    const ctx: HubContext = {
      config,
      store,
      state,
      bus: new LiveBus(),
      presence: new PresenceTracker(config.presence.ttlSeconds * 1000, now),
      stopContinuations: new StopContinuations(HOOK_TRACKED_CLIENT_SESSIONS),
      // The meeting's own cap leaves room for the scanner's note; the redactor enforces the configured limit.
      meetings: new MeetingRegistry({
        ringSize: config.meeting.ringSize,
        maxParticipants: config.meeting.maxParticipants,
        maxMessageChars: config.meeting.maxMessageChars + REDACTION_NOTE.length,
      }),
      redactor,
      meetingRedactor,
      search,
      logger,
      lifecycle: new Lifecycle(),
      tokens,
      rateLimiter: new RateLimiter({ burst: config.chat.limits.writeBurst, perMinute: config.chat.limits.writesPerMinute }, now),
      access,
      reads: new ReadGate(config.chat.limits.concurrentReads),
      now,
      keys,
      rosters,
      envelopes: new EnvelopeGate(config, now),
      sealer: new EventSealer({ store, keys, state, config, logger, access }, { sign: options.signEvents ?? true }),
      newId: ulidFactory(now),
    };
    ctx.sealer.recover();
    // Said once the hub is up: a home the hub cannot use at all fails above with the reason instead.
    if (privacyWarning) logger.warn(privacyWarning);
    // The hub's own key marked archive in the roster in force keeps history for retention.archiveHours.
    const hubKey = keys.hub().raw;
    const retention: RetentionSeams = { isArchive: () => access.isArchive(hubKey), ...options.retention };
    return new Hub(home, config, ctx, lock, retention);
  } catch (error) {
    store?.db.close();
    await search?.close();
    lock.release();
    throw toParleyError(error, place);
  }
}

/** The log as the search index reads it when it catches up (at start, and after the indexer failed). */
function searchSource(store: Store, state: HubState): SearchSource {
  return {
    storeId: store.storeId,
    maxSeq: () => store.events.maxSeq(),
    docsAfter: (after, limit) => {
      const rows = store.events.readAllAfter(after, limit);
      const docs = rows.map((row) => searchDocOf({ state }, rowToEvent(row))).filter((doc): doc is SearchDoc => doc !== undefined);
      return { docs, last: rows.at(-1)?.seq };
    },
    prunedAfter: (id, limit) => store.retention.prunedAfter(id, limit),
    prunedTrimmedUpTo: () => store.retention.trimmedUpTo(),
    latestPrunedId: () => store.retention.latestPrunedId(),
  };
}

