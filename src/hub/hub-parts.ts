// Making a hub: its home opened and locked, and every component its
// operations use (the HubContext) made from its options.

import path from 'node:path';
import { HOOK_TRACKED_CLIENT_SESSIONS, REDACTION_NOTE, SEARCH_FILENAME, STORE_FILENAME } from '../config/defaults.js';
import { parseConfig } from '../config/load.js';
import type { Config, ConfigInput } from '../config/schema.js';
import { ParleyError, toParleyError } from '../errors/parley-error.js';
import { acquireHomeLock, type HomeLock } from '../home/home-lock.js';
import { makeHomePrivate } from '../home/private-home.js';
import { MeetingRegistry } from '../meeting/meeting-registry.js';
import { createRedactor } from '../redaction/redactor.js';
import type { SecretScanner } from '../redaction/scanner.js';
import { SearchIndex, type SearchDoc, type SearchSource } from '../search/search-index.js';
import { rowToEvent } from '../store/event-log.js';
import { openStore, type Store } from '../store/store.js';
import { KeyRing } from '../trust/key-ring.js';
import { rosterFileOf } from '../trust/roster-file.js';
import { ulidFactory } from '../util/ids.js';
import { createStderrLogger, type Logger } from '../util/logger.js';
import { AccessResolver, type RosterView } from './access-resolver.js';
import type { HubContext } from './context.js';
import { EnvelopeGate } from './envelope-gate.js';
import { EventSealer } from './event-sealer.js';
import { SignatureChecks } from './signature-checks.js';
import { Lifecycle } from './lifecycle.js';
import { LiveBus } from './live-bus.js';
import { PresenceTracker } from './presence.js';
import { RemotePresence } from './remote-presence.js';
import { RateLimiter } from './rate-limit.js';
import { ReadGate } from './read-gate.js';
import type { RetentionSeams } from './retention.js';
import { RosterBook, rosterViewOf } from './roster-book.js';
import { loadRosterAtStart } from './roster-startup.js';
import { HubState } from './state.js';
import { StopContinuations } from './stop-continuations.js';
import { storeWentBack } from './store-mark.js';
import { TokenRegistry } from './tokens.js';
import { searchDocOf } from './writer.js';

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

/** An opened hub's parts: its home, held, and the components every operation of it uses. */
export interface HubParts {
  home: string;
  config: Config;
  ctx: HubContext;
  lock: HomeLock;
  retention: RetentionSeams;
}

/**
 * Opens a hub's home and makes its components, in order: the home's
 * single-writer lock before the store (a refused hub never opens the store),
 * the state and keys, the redactors, the tokens, access and the roster in
 * force, the search index, then the rest. A failure closes what was opened.
 */
export async function openHubParts(options: HubOptions): Promise<HubParts> {
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
      checkpoint: config.store.checkpoint,
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
    search = new SearchIndex(path.join(home, SEARCH_FILENAME), logger, searchSource(store, state));
    const ctx: HubContext = {
      config,
      store,
      state,
      bus: new LiveBus(),
      presence: new PresenceTracker(config.presence.ttlSeconds * 1000, now),
      remotePresence: new RemotePresence(config.presence.ttlSeconds * 1000, now),
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
      signatureChecks: new SignatureChecks(logger),
      newId: ulidFactory(now),
    };
    ctx.sealer.recover();
    // Said once the hub is up: a home the hub cannot use at all fails above with the reason instead.
    if (privacyWarning) logger.warn(privacyWarning);
    // The hub's own key marked archive in the roster in force keeps history for retention.archiveHours.
    const hubKey = keys.hub().raw;
    const retention: RetentionSeams = { isArchive: () => access.isArchive(hubKey), ...options.retention };
    return { home, config, ctx, lock, retention };
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

