// Taking in a batch of events a linked hub sent (src/peer): each one placed in
// this hub's session and thread of the same name, then handed to the peer
// entry, where it passes the gate and the message rules as any envelope does.

import { ParleyError, parseInput } from '../errors/parley-error.js';
import type { SecretSearch } from '../redaction/redactor.js';
import type { DropReason } from '../schema/peer-link.js';
import { SessionNameSchema } from '../schema/names.js';
import { decodeEventTuple, type SignedEventFields } from '../trust/envelope.js';
import { participantIdOf } from '../trust/node-id.js';
import type { HubContext } from './context.js';
import { addToSession, ensureSession } from './directory.js';
import { DecodedEnvelope } from './envelope-opening.js';
import { scannedTextsOfFields } from './ingest.js';
import type { PeerEntry } from './peer-entry.js';
import type { ParticipantRecord, ThreadRecord } from './records.js';
import { dmKeyOf, insertThread, parseChannelName, sideChannelOf } from './threads.js';
import { allowsFetch, windowStart } from './history-window.js';
import { transact } from './writer.js';
import { inBackground } from '../util/background.js';

/** One event as a linked hub sends it: what its author signed, and where it goes by name. */
export interface PeerEvent {
  /** The signed tuple's canonical CBOR (src/trust/envelope.ts) and its author's signature. */
  bytes: Uint8Array;
  sig: Uint8Array;
  /** Its session's name. */
  session: string;
  /** Its channel's name; null: a DM, whose thread is the one of its two participants. */
  channel: string | null;
  /** A DM's other participant (raw key): its addressee, or whom a post in the DM thread goes to. */
  dmWith: Uint8Array | null;
  /** In a side channel: the side channels from `channel` down to its thread, outermost first. */
  side?: SideStep[];
  /** The sender_seq of its author's previous event that crossed, in its thread and epoch (see history-gaps.ts); absent: not said. */
  prev?: number | null;
}

/**
 * A side channel as a linked hub names it: by the id it has there (kept on
 * every hub, so that the events of one side channel meet in one thread
 * whichever hub they come from), with its title and members' ids, to open
 * it where it is not yet.
 */
export interface SideStep {
  id: string;
  title: string;
  members: string[];
}


/** What became of one event: stored (or held already) in a thread of this hub, or dropped with the reason counted on the link. */
export type PeerTaken = { seq: number; duplicate: boolean; thread: string } | { dropped: DropReason; message: string };

/** What stands in the batch's promise lists for an event refused before it was scanned or taken. */
const NOT_SCANNED: Promise<SecretSearch> = Promise.resolve({ spans: [], scannerError: false });
const NOT_TAKEN: Promise<undefined> = Promise.resolve(undefined);

interface Placed {
  event: PeerEvent;
  fields: SignedEventFields;
  author: ParticipantRecord;
  session: string;
  channel: string | null;
  addressee: ParticipantRecord | undefined;
  side: SideStep[];
}

/**
 * A page a linked hub sent, decoded, with the checks that need nothing of
 * this hub's state under way (its signatures, on the worker; its texts'
 * secret scan): made as soon as the page is read, so that they run while the
 * page before it is stored.
 */
export interface PreparedPage {
  fromHub: string;
  events: readonly PeerEvent[];
  /** Sent as its events were written: each must be within its TTL. */
  live: boolean;
  /** History a peer served of a channel: its events may be by any hub's participants, each within this hub's window. */
  history: boolean;
  /** Each event's signed fields, or why it does not decode. */
  decoded: ReadonlyArray<SignedEventFields | PeerRefusal>;
  /** Each event's secret scan, and whether its signature holds (false for one that does not decode). */
  checks: Promise<[SecretSearch[], boolean[]]>;
}

/** Decodes a page from the hub holding key `fromHub` and starts its checks (see PreparedPage). */
export function preparePeerPage(ctx: HubContext, fromHub: string, events: readonly PeerEvent[], live = false, history = false, first = false): PreparedPage {
  const texts: string[][] = [];
  const decoded = events.map((event, i): SignedEventFields | PeerRefusal => {
    try {
      const fields = decodeEventTuple(event.bytes, { maxBytes: ctx.config.trust.maxEnvelopeBytes });
      // Content of the wrong shape for its kind cannot be scanned: refused here as the gate would refuse it.
      texts[i] = scannedTextsOfFields(fields);
      return fields;
    } catch (error) {
      return new PeerRefusal('malformed-event', error instanceof Error ? error.message : 'it does not decode');
    }
  });
  const at = decoded.flatMap((d, i) => (d instanceof PeerRefusal ? [] : [i]));
  const checks = Promise.all([
    Promise.all(decoded.map((d, i) => (d instanceof PeerRefusal ? NOT_SCANNED : ctx.redactor.find(texts[i]!)))),
    ctx.signatureChecks.check(at.map((i) => ({ bytes: events[i]!.bytes, key: (decoded[i] as SignedEventFields).from, sig: events[i]!.sig })), first).then((holds) => {
      const byEvent = events.map(() => false);
      at.forEach((i, n) => (byEvent[i] = holds[n] === true));
      return byEvent;
    }),
  ]);
  // A page whose stream ends before it is stored is never awaited: its checks' failure is logged, not lost.
  inBackground(checks, ctx.logger, "checking a linked hub's page");
  return { fromHub, events, live, history, decoded, checks };
}

/** Pages of one hub prepared one by one, as one page (their events in order; their checks together). */
export function mergePreparedPages(pages: readonly PreparedPage[]): PreparedPage {
  const [first] = pages;
  if (!first) throw new Error('no page to merge');
  if (pages.length === 1) return first;
  const checks = Promise.all(pages.map((page) => page.checks)).then((all): [SecretSearch[], boolean[]] => [all.flatMap(([scans]) => scans), all.flatMap(([, holds]) => holds)]);
  return { ...first, events: pages.flatMap((page) => page.events), decoded: pages.flatMap((page) => page.decoded), checks };
}

/**
 * Takes in a prepared page, in its order: each event is refused unless its
 * author is a participant the sending hub hosts (a hub cannot speak for
 * another's participants), and a DM unless its addressee is hosted here. The
 * page's events are stored in one turn, so in the order they came, and the
 * promise resolves once they are durable. A live page's events must each be
 * within their TTL; history the peer catches up on is taken whatever its age.
 */
export async function storePeerPage(ctx: HubContext, entry: PeerEntry, page: PreparedPage): Promise<PeerTaken[]> {
  const { events, decoded, live } = page;
  const results: Array<PeerTaken | undefined> = events.map(() => undefined);
  const names: PageNames = { sessions: new Map(), channels: new Map(), windows: new Map() };
  const placed: Array<Placed | undefined> = events.map((event, i) => {
    try {
      const fields = decoded[i]!;
      if (fields instanceof PeerRefusal) throw fields;
      return place(ctx, page.fromHub, event, fields, page.history, names);
    } catch (error) {
      results[i] = refusal(error);
      return undefined;
    }
  });
  // Scanned, and signatures checked, before anything is stored, so that nothing awaits between the events of the page.
  const [scans, holds] = await page.checks;
  if (ctx.lifecycle.closing) throw new ParleyError('HUB_CLOSED', 'The hub is closing; the linked hub sends these again once it is back.');
  const threads = await placeThreads(ctx, placed);
  const taken = placed.map((p, i) => {
    const thread = p && threads[i];
    if (!p || !thread) return NOT_TAKEN;
    const input = new DecodedEnvelope(p.event.bytes, p.fields, Buffer.from(p.event.sig), thread.id, holds[i], live, p.event.prev ?? null, page.history);
    return entry.syncEnvelope(input, scans[i]);
  });
  const settled = await Promise.allSettled(taken);
  return settled.map((outcome, i) => {
    if (results[i]) return results[i];
    if (outcome.status === 'fulfilled') {
      return outcome.value ? { seq: outcome.value.seq, duplicate: outcome.value.duplicate === true, thread: threads[i]!.id } : { dropped: 'malformed-event', message: 'not placed' };
    }
    return refusal(outcome.reason);
  });
}

/** What a page's events share, worked out once a page: their session and channel names as parsed, and each channel's window start. */
interface PageNames {
  sessions: Map<string, string>;
  channels: Map<string, string>;
  windows: Map<ThreadRecord | undefined, number>;
}

function parsedOnce(names: Map<string, string>, name: string, parse: (name: string) => string): string {
  let parsed = names.get(name);
  if (parsed === undefined) names.set(name, (parsed = parse(name)));
  return parsed;
}

/**
 * The event's author and addressee, checked: who may send it from this hub,
 * and where it goes. History is a channel's, by any participant this hub
 * knows (its signature says who wrote it), within the window this hub keeps.
 */
function place(ctx: HubContext, fromHub: string, event: PeerEvent, fields: SignedEventFields, history: boolean, names: PageNames): Placed {
  const author = ctx.state.participants.get(participantIdOf(fields.from));
  if (history ? !author : !author || author.hubKey !== fromHub) {
    const what = history ? 'its author is not a participant this hub knows of' : "its author is not a participant the sending hub hosts; a hub hands in only its own participants' events";
    throw new PeerRefusal(history ? 'author-not-in-roster' : 'not-hosted', `event ${fields.id}: ${what}`);
  }
  const session = parsedOnce(names.sessions, event.session, (name) => parseInput(SessionNameSchema, name, 'session'));
  const channel = event.channel === null ? null : parsedOnce(names.channels, event.channel, (name) => parseChannelName(name, 'channel'));
  if (history) checkHistory(ctx, fields, session, channel, names.windows);
  let addressee: ParticipantRecord | undefined;
  if (channel === null) {
    const other = event.dmWith ?? fields.to;
    addressee = other === null ? undefined : ctx.state.participants.get(participantIdOf(other));
    if (!addressee || addressee.hubKey !== undefined) {
      throw new PeerRefusal('not-for-this-hub', `event ${fields.id}: a DM goes only to the hub hosting its other participant, and this hub does not host it`);
    }
  }
  const side = event.side ?? [];
  if (side.length > 0) checkSides(ctx, fields.id, session, channel, side);
  return { event, fields, author: author!, session, channel, addressee, side };
}

/** History is of a channel (a DM goes only to its addressee's hub, from its author's) whose policy lets it be fetched (its access policy always may), no older than the window this hub keeps of it. */
function checkHistory(ctx: HubContext, fields: SignedEventFields, session: string, channel: string | null, windows: Map<ThreadRecord | undefined, number>): void {
  if (channel === null) throw new PeerRefusal('malformed-event', `event ${fields.id}: history is a channel's; a DM is not served as history`);
  const sessionId = ctx.state.sessionByName(session)?.id;
  const held = sessionId === undefined ? undefined : ctx.state.channel(sessionId, channel);
  const setsAccess = fields.kind === 'control' && typeof fields.content === 'object' && fields.content !== null && 'access' in fields.content;
  if (held && !setsAccess && !allowsFetch(ctx, held)) {
    throw new PeerRefusal('history-not-allowed', `event ${fields.id}: #${channel}'s access policy does not allow its history to be fetched (allow_history_fetch: false)`);
  }
  let start = windows.get(held);
  if (start === undefined) windows.set(held, (start = windowStart(ctx, held)));
  if (fields.ts < start) {
    throw new PeerRefusal('past-retention', `event ${fields.id}: written ${new Date(fields.ts).toISOString()}, before the window this hub keeps of #${channel} (its retention)`);
  }
}

/**
 * Refuses side channels that do not hang where they say: each one this hub
 * holds already must be a side channel of the one before it (the first of
 * the channel), so that an id cannot move an event into another thread.
 */
function checkSides(ctx: HubContext, id: string, session: string, channel: string | null, side: readonly SideStep[]): void {
  if (channel === null) throw new PeerRefusal('malformed-event', `event ${id}: a side channel hangs from a channel, and it names none`);
  const sessionId = ctx.state.sessionByName(session)?.id;
  let parentId = sessionId === undefined ? undefined : ctx.state.channel(sessionId, channel)?.id;
  for (const step of side) {
    const held = ctx.state.threads.get(step.id);
    if (held && (held.kind !== 'side' || held.parentId === undefined || held.parentId !== parentId)) {
      throw new PeerRefusal('malformed-event', `event ${id}: this hub holds a thread ${step.id} that is not a side channel of the one the event names before it`);
    }
    parentId = step.id;
  }
}

/**
 * The thread of this hub each placed event goes to, made when it is not
 * there yet (the session, the channel of that name, the DM of its two
 * participants), with the author made a member of the session.
 */
function placeThreads(ctx: HubContext, placed: ReadonlyArray<Placed | undefined>): Promise<Array<ThreadRecord | undefined>> | Array<ThreadRecord | undefined> {
  const found = placed.map((p) => p && existingThread(ctx, p));
  if (placed.every((p, i) => !p || (found[i] && ctx.state.sessions.get(found[i]!.sessionId)?.members.has(p.author.id)))) return found;
  return transact(ctx, () => placed.map((p) => p && threadFor(ctx, p)));
}

function existingThread(ctx: HubContext, p: Placed): ThreadRecord | undefined {
  const session = ctx.state.sessionByName(p.session);
  if (!session) return undefined;
  if (p.channel === null) return ctx.state.dm(session.id, dmKeyOf(p.author.id, p.addressee!.id));
  let thread = ctx.state.channel(session.id, p.channel);
  for (const step of p.side) thread = thread && sideChannelOf(ctx, thread, step.id);
  return thread;
}

function threadFor(ctx: HubContext, p: Placed): ThreadRecord {
  const session = ensureSession(ctx, p.session);
  addToSession(ctx, session, p.author);
  if (p.channel !== null) {
    let thread = ctx.state.channel(session.id, p.channel) ?? insertThread(ctx, { session, kind: 'channel', name: p.channel, createdBy: p.author.id, members: [] });
    for (const step of p.side) {
      const members = step.members.filter((id) => ctx.state.participants.has(id));
      thread = sideChannelOf(ctx, thread, step.id) ?? insertThread(ctx, { session, kind: 'side', name: step.title, createdBy: p.author.id, parent: thread, members, id: step.id });
    }
    return thread;
  }
  const dmKey = dmKeyOf(p.author.id, p.addressee!.id);
  addToSession(ctx, session, p.addressee!);
  const name = `dm:${[p.author.handle, p.addressee!.handle].sort().join(',')}`;
  return ctx.state.dm(session.id, dmKey) ?? insertThread(ctx, { session, kind: 'dm', name, createdBy: p.author.id, dmKey, members: [p.addressee!.id] });
}

/** A refusal of one event, with the reason it is counted under on the link. */
class PeerRefusal extends Error {
  constructor(
    readonly reason: DropReason,
    message: string,
  ) {
    super(message);
    this.name = 'PeerRefusal';
  }
}

/** The gate's and the rules' refusals, as a link counts them. */
const REASON_OF_CODE: Readonly<Record<string, DropReason>> = {
  BAD_SIGNATURE: 'bad-signature',
  NOT_IN_ROSTER: 'author-not-in-roster',
  INVALID_INPUT: 'malformed-event',
  PAYLOAD_TOO_LARGE: 'malformed-event',
};

/** A live event refused by the TTL rule, by the envelope gate's verdict. */
const TIME_REASONS: Readonly<Record<string, DropReason>> = { expired: 'expired', future: 'future' };

function refusal(error: unknown): PeerTaken {
  if (error instanceof PeerRefusal) return { dropped: error.reason, message: error.message };
  if (error instanceof ParleyError) {
    if (error.code === 'HUB_CLOSED') throw error;
    const reason = error.code === 'ENVELOPE_REJECTED' ? TIME_REASONS[String(error.details?.reason)] : undefined;
    return { dropped: reason ?? REASON_OF_CODE[error.code] ?? 'refused-by-rules', message: error.message };
  }
  throw error;
}
