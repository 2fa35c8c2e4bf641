import type { Config } from '../config/schema.js';
import type { AccessResolver } from './access-resolver.js';
import type { MeetingRegistry } from '../meeting/meeting-registry.js';
import type { Redactor } from '../redaction/redactor.js';
import type { SearchIndex } from '../search/search-index.js';
import type { Store } from '../store/store.js';
import type { Logger } from '../util/logger.js';
import type { Lifecycle } from './lifecycle.js';
import type { LiveBus } from './live-bus.js';
import type { PresenceTracker } from './presence.js';
import type { RemotePresence } from './remote-presence.js';
import type { StopContinuations } from './stop-continuations.js';
import type { HubState } from './state.js';
import type { RateLimiter } from './rate-limit.js';
import type { ReadGate } from './read-gate.js';
import type { KeyRing } from '../trust/key-ring.js';
import type { EventSealer } from './event-sealer.js';
import type { SignatureChecks } from './signature-checks.js';
import type { RosterBook } from './roster-book.js';
import type { EnvelopeGate } from './envelope-gate.js';
import type { TokenRegistry } from './tokens.js';

/** Everything an operation of the hub needs, passed explicitly (no module state). */
export interface HubContext {
  config: Config;
  store: Store;
  state: HubState;
  bus: LiveBus;
  presence: PresenceTracker;
  /** The presence of participants linked hubs host, as their hubs gossip it. */
  remotePresence: RemotePresence;
  /** Stops blocked in a row by an agent's stop hook, per client session. */
  stopContinuations: StopContinuations;
  meetings: MeetingRegistry;
  redactor: Redactor;
  /** The redactor of meeting lines: the meeting's own length limit. */
  meetingRedactor: Redactor;
  search: SearchIndex;
  logger: Logger;
  lifecycle: Lifecycle;
  tokens: TokenRegistry;
  rateLimiter: RateLimiter;
  /** Each participant's permission role (access), from the roster or, in local mode, the hub's settings. */
  access: AccessResolver;
  /** Heavy reads take turns per participant. */
  reads: ReadGate;
  now: () => number;
  /** The hub's key and the custodial keys of participants registered here (files under the home). */
  keys: KeyRing;
  /** Signs each event as the writer appends it. */
  sealer: EventSealer;
  /** Checks the signatures of what linked hubs send, on a worker thread (signature-checks.ts). */
  signatureChecks: SignatureChecks;
  /** Where envelopes signed elsewhere are checked for TTL and replay, and their drops counted. */
  envelopes: EnvelopeGate;
  /** The rosters the hub accepted (none: local mode). */
  rosters: RosterBook;
  newId: () => string;
}
