// History sync, the hub's side (src/peer/history-sync.ts carries it): what a
// linked hub may ask of this hub's channels and is served, page by page, from
// every author (not only this hub's own participants, as the fan-out sends);
// what this hub asks of a channel, and whether a peer's digest holds
// anything it lacks. Served events keep their authors' signatures: the asking
// hub checks each one as it would any event from a linked hub.

import { ParleyError } from '../errors/parley-error.js';
import type { ParticipantKind } from '../schema/participant.js';
import type { EventRow } from '../store/event-log.js';
import { streamKey, type GapRow, type StreamRow } from '../store/history-store.js';
import { participantIdOf, parsePublicKey } from '../trust/node-id.js';
import { mayRead, policyOf } from './channel-access.js';
import { hubNameOf } from './hub-name.js';
import { allowsFetch, isArchive, retentionWindow, windowStart } from './history-window.js';
import type { HubContext } from './context.js';
import { channelEventOf } from './peer-outbox.js';
import type { PeerEvent } from './peer-intake.js';
import { rawKeyOf } from './participant-key.js';
import type { ThreadRecord } from './records.js';

/** One author's events in one thread and epoch: held from seq `from` to `through` with no hole (a digest: `through` is the highest held, `held` how many). */
export interface HistoryStream {
  author: Uint8Array;
  /** The thread id its author signed (its origin hub's). */
  thread: string;
  epoch: Uint8Array;
  from: number;
  through: number;
  held: number;
}

/**
 * A channel as a peer's digest shows it: the version of its access policy in
 * force (0: none), whether it serves its history, and the streams it holds
 * in the asked window.
 */
export interface ChannelDigest {
  session: string;
  channel: string;
  policy: number;
  allowed: boolean;
  streams: HistoryStream[];
}

/** What a hub asks a peer of one channel: what it holds (`since`), the window it keeps (`sinceTs`), and the size of each page. */
export interface HistoryAsk {
  session: string;
  channel: string;
  sinceTs: number;
  since: HistoryStream[];
  maxMessages: number;
  maxBytes: number;
}

/** An author of served events, as the serving hub knows it: the asking hub registers one it does not know yet. */
export interface HistoryAuthor {
  key: Uint8Array;
  handle: string;
  kind: ParticipantKind;
  hub: Uint8Array;
  hubName: string;
}

/** A page of a channel's history: its events, their authors, the seq of the serving hub's log it was read through, and whether more follows. */
export interface HistoryPage {
  events: PeerEvent[];
  authors: HistoryAuthor[];
  through: number;
  more: boolean;
}

/** Rows read from the log for one page at most: a page that found nothing to send in this many goes out empty, `more` set. */
const SCAN_ROWS = 4096;
/** Events in the first page at most: the asking hub has the first of what it lacks soon, then full pages. */
const FIRST_PAGE_EVENTS = 10;
/** Bytes each event costs in a page beyond its signed bytes (its place, signature and framing), roughly. */
const EVENT_OVERHEAD_BYTES = 100;

/** The channels of this hub a participant of the hub holding `peerKey` may read. */
export function channelsReadableBy(ctx: HubContext, peerKey: string): ThreadRecord[] {
  const theirs = [...ctx.state.participants.values()].filter((p) => p.hubKey === peerKey).map((p) => p.id);
  if (theirs.length === 0) return [];
  return [...ctx.state.threads.values()].filter((t) => t.kind === 'channel' && theirs.some((id) => mayRead(ctx, t, id)));
}

/** Whether a participant this hub hosts may read the channel. */
export function readableHere(ctx: HubContext, channel: ThreadRecord): boolean {
  for (const participant of ctx.state.participants.values()) if (participant.hubKey === undefined && mayRead(ctx, channel, participant.id)) return true;
  return false;
}

/** A channel's thread and the side channels below it, at any depth: one history. */
export function threadsOf(ctx: HubContext, channel: ThreadRecord): string[] {
  const ids = [channel.id];
  for (let i = 0; i < ids.length && ids.length < 10_000; i += 1) {
    for (const thread of ctx.state.threads.values()) if (thread.kind === 'side' && thread.parentId === ids[i]) ids.push(thread.id);
  }
  return ids;
}

function channelNamed(ctx: HubContext, session: string, channel: string): ThreadRecord | undefined {
  const found = ctx.state.sessionByName(session);
  return found && ctx.state.channel(found.id, channel);
}

function policyVersion(ctx: HubContext, channel: ThreadRecord | undefined): number {
  return (channel && policyOf(ctx, channel)?.policy.version) ?? 0;
}

function streamOf(row: StreamRow): HistoryStream {
  return { author: Buffer.alloc(0), thread: row.thread, epoch: row.epoch, from: row.min_seq, through: row.max_seq, held: row.held };
}

/** The streams of a channel's history this hub holds, by stream key (those whose newest event is older than `sinceTs` left out). */
function heldStreams(ctx: HubContext, channel: ThreadRecord, sinceTs = 0): Map<string, HistoryStream> {
  const held = new Map<string, HistoryStream>();
  for (const row of ctx.store.history.streams(threadsOf(ctx, channel))) {
    const participant = ctx.state.participants.get(row.from_id);
    if (!participant || row.newest_ts < sinceTs) continue;
    held.set(streamKey(row.from_id, row.thread, row.epoch), { ...streamOf(row), author: rawKeyOf(participant) });
  }
  return held;
}

/**
 * What this hub serves the hub holding `peerKey`: each channel it may read,
 * with the streams it holds that have events since `sinceTs` or the start of
 * the channel's window, whichever is later. A stream's counts are of every
 * event held, older ones retention has not pruned yet among them: a digest
 * costs the number of streams, and the pages served keep to the window.
 */
export function digestFor(ctx: HubContext, peerKey: string, sinceTs: number): ChannelDigest[] {
  const archive = isArchive(ctx, peerKey);
  return channelsReadableBy(ctx, peerKey).map((channel) => {
    const session = ctx.state.sessions.get(channel.sessionId)!;
    const allowed = allowsFetch(ctx, channel);
    const since = Math.max(sinceTs, ctx.now() - retentionWindow(ctx, channel, archive).hours * 3_600_000);
    const streams = allowed ? [...heldStreams(ctx, channel, since).values()] : [];
    return { session: session.name, channel: channel.name, policy: policyVersion(ctx, channel), allowed, streams };
  });
}

/**
 * What this hub asks of a channel: each stream it holds, from its oldest
 * held seq up to the first hole, and its window. The peer serves the
 * channel's access policy whatever it holds, and its history only if the
 * policy allows it (see historyPage).
 */
export function askOf(ctx: HubContext, session: string, channelName: string, limits: { maxMessages: number; maxBytes: number }, gapsOf: (channel: ThreadRecord) => readonly GapRow[]): HistoryAsk {
  const channel = channelNamed(ctx, session, channelName);
  const sinceTs = windowStart(ctx, channel);
  const since: HistoryStream[] = [];
  if (channel) {
    const held = heldStreams(ctx, channel);
    for (const gap of gapsOf(channel)) {
      const stream = held.get(streamKey(gap.from_id, gap.thread, gap.epoch));
      if (stream) stream.through = Math.min(stream.through, gap.held_below);
    }
    since.push(...held.values());
  }
  return { session, channel: channelName, sinceTs, since, ...limits };
}

/**
 * Whether a peer's digest of a channel holds what this hub lacks: a newer
 * access policy, or (when its history may be fetched) a stream this hub does
 * not hold, or holds less of (a higher seq, or more events, in its window).
 */
export function lacks(ctx: HubContext, digest: ChannelDigest): boolean {
  const channel = channelNamed(ctx, digest.session, digest.channel);
  if (digest.policy > policyVersion(ctx, channel)) return true;
  if (!digest.allowed || digest.streams.length === 0) return false;
  if (!channel) return true;
  if (!allowsFetch(ctx, channel)) return false;
  const held = heldStreams(ctx, channel);
  return digest.streams.some((theirs) => {
    const mine = held.get(streamKey(participantIdOf(theirs.author), theirs.thread, theirs.epoch));
    return !mine || mine.through < theirs.through || mine.held < theirs.held;
  });
}

/**
 * A channel's history as this hub serves it to the hub holding `peerKey`,
 * page after page (`next`): the events of its window the asking hub does not
 * say it holds, each page up to `ask.maxMessages` and about `ask.maxBytes`
 * (one at least). The first page starts with the channel's access policy,
 * whatever its age (each hub decides by it what it sends where); the
 * channel's history follows only if that policy allows it to be fetched.
 * This hub's own participants' events the peer has not acknowledged yet are
 * left to the fan-out, which sends them next. Refused (FORBIDDEN) unless one
 * of the peer's participants may read the channel; a channel this hub does
 * not hold has none.
 */
export class HistoryServing {
  readonly #ctx: HubContext;
  readonly #ask: HistoryAsk;
  readonly #channel: ThreadRecord | undefined;
  readonly #holds: Map<string, HistoryStream>;
  /** The channel's threads, each with the seq its retention keeps events after (its newest `retention_messages`). */
  readonly #threads: Array<{ id: string; floor: number }> = [];
  readonly #sinceTs: number = 0;
  readonly #acknowledged: number = 0;
  /** The channel's policy control: sent first, once; left out where the log holds it. */
  #policy: EventRow | undefined;
  #policyId: string | undefined;
  #through = 0;
  #done = false;
  /** The asking hub holds every event of the channel this hub holds (its policy may still be news to it). */
  #lacksNone = false;
  #sentAny = false;

  constructor(ctx: HubContext, peerKey: string, ask: HistoryAsk) {
    this.#ctx = ctx;
    this.#ask = ask;
    this.#holds = new Map(ask.since.map((s) => [streamKey(participantIdOf(s.author), s.thread, s.epoch), s]));
    const channel = channelNamed(ctx, ask.session, ask.channel);
    this.#channel = channel;
    if (!channel) return;
    if (!channelsReadableBy(ctx, peerKey).includes(channel)) {
      throw new ParleyError('FORBIDDEN', `#${ask.channel}: no participant of the asking hub may read this channel; its history is not served.`, { field: 'channel' });
    }
    // Looked up only where a policy is in force: with none, the search would read the channel's every event.
    this.#policy = policyOf(ctx, channel) ? ctx.store.history.latestAccessControl(channel.id) : undefined;
    this.#policyId = this.#policy?.id;
    const window = retentionWindow(ctx, channel, isArchive(ctx, peerKey));
    this.#threads = threadsOf(ctx, channel).map((id) => ({ id, floor: Number.isFinite(window.messages) ? ctx.store.history.seqBeforeNewest(id, window.messages) : 0 }));
    this.#sinceTs = Math.max(ask.sinceTs, ctx.now() - window.hours * 3_600_000);
    this.#acknowledged = ctx.store.peerCursors.cursor(peerKey);
    const start = firstLacked(ctx, channel, this.#holds, this.#acknowledged);
    if (start === undefined) this.#lacksNone = true;
    else this.#through = start - 1;
  }

  /** The next page; its `more` is false on the last. */
  next(): HistoryPage {
    const page = this.#build();
    if (page.events.length > 0) this.#sentAny = true;
    return page;
  }

  #build(): HistoryPage {
    // The first page is short: the asking hub checks and stores it while the next ones come.
    const page = new PageBuilder(this.#ctx, this.#ask, this.#sentAny ? this.#ask.maxMessages : Math.min(FIRST_PAGE_EVENTS, this.#ask.maxMessages));
    const channel = this.#channel;
    if (!channel || this.#done) return page.done(this.#through, false);
    if (this.#policy && !isHeld(this.#policy, this.#holds)) page.add(this.#policy);
    this.#policy = undefined;
    if (this.#lacksNone || !allowsFetch(this.#ctx, channel)) {
      this.#done = true;
      return page.done(this.#through, false);
    }
    // Read a page's worth at a time; what the asking hub holds is skipped, up to SCAN_ROWS rows a page.
    const batch = this.#ask.maxMessages;
    for (let scanned = 0; scanned < SCAN_ROWS; ) {
      const rows = this.#ctx.store.history.page(this.#threads, this.#through, this.#sinceTs, batch);
      for (const row of rows) {
        this.#through = row.seq;
        if (row.id !== this.#policyId && wanted(this.#ctx, row, this.#holds, this.#acknowledged)) page.add(row);
        if (page.full) return page.done(this.#through, true);
      }
      scanned += rows.length;
      if (rows.length < batch) {
        this.#done = true;
        return page.done(this.#through, false);
      }
    }
    return page.done(this.#through, true);
  }
}

/** A page being filled: its events, their authors, and its size against the ask's limits. */
class PageBuilder {
  readonly #events: PeerEvent[] = [];
  readonly #authors = new Map<string, HistoryAuthor>();
  readonly #places = new Map();
  #bytes = 0;

  constructor(
    private readonly ctx: HubContext,
    private readonly ask: HistoryAsk,
    private readonly maxMessages: number,
  ) {}

  get full(): boolean {
    return this.#events.length >= this.maxMessages || (this.#events.length > 0 && this.#bytes >= this.ask.maxBytes);
  }

  add(row: EventRow): void {
    const event = channelEventOf(this.ctx, row, this.#places);
    if (!event) return;
    const { seq: _seq, ...sent } = event;
    this.#events.push(sent);
    this.#bytes += sent.bytes.length + EVENT_OVERHEAD_BYTES;
    if (!this.#authors.has(row.from_id)) {
      const author = authorOf(this.ctx, row.from_id);
      if (author) this.#authors.set(row.from_id, author);
    }
  }

  done(through: number, more: boolean): HistoryPage {
    return { events: this.#events, authors: [...this.#authors.values()], through, more };
  }
}

/**
 * Where in this hub's log the first event of the channel the asking hub
 * lacks may be (undefined: it lacks none): a scan of the channel's pages
 * starts there, not at its oldest event. A stream it holds the start of
 * but not the end, taken from a linked hub, is looked up by its seqs; any
 * other it lacks anything of starts at its first event held here. This
 * hub's own events after the peer's cursor are the fan-out's to send.
 */
function firstLacked(ctx: HubContext, channel: ThreadRecord, holds: Map<string, HistoryStream>, acknowledged: number): number | undefined {
  let first: number | undefined;
  for (const row of ctx.store.history.streams(threadsOf(ctx, channel))) {
    // A stream of an author this hub does not know is never served (see wanted()).
    const author = ctx.state.participants.get(row.from_id);
    if (!author) continue;
    const theirs = holds.get(streamKey(row.from_id, row.thread, row.epoch));
    const local = author.hubKey === undefined;
    if (local && row.first_log_seq > acknowledged) continue;
    let from = row.first_log_seq;
    if (theirs && theirs.from <= row.min_seq) {
      if (theirs.through >= row.max_seq) continue;
      if (local) {
        // What the peer acknowledged of it, it held at least then (a store restored since may not): what follows is the fan-out's.
        const found = ctx.store.history.ownFirstAfter(row.from_id, row.thread_id, row.epoch, theirs.through, acknowledged);
        if (found === null) continue;
        from = found ?? from;
      } else from = ctx.store.history.firstAfter(row, theirs.through) ?? from;
    }
    first = Math.min(first ?? from, from);
  }
  return first;
}

/** Whether the asking hub says it holds the row (its stream, from its oldest held seq through its first hole). */
function isHeld(row: EventRow, holds: Map<string, HistoryStream>): boolean {
  if (row.sender_seq === null || row.sender_epoch === null) return false;
  const held = holds.get(streamKey(row.from_id, row.signed_thread ?? row.thread_id, row.sender_epoch));
  return held !== undefined && row.sender_seq >= held.from && row.sender_seq <= held.through;
}

/** Whether a row goes in a page: not what the asking hub holds, and not one of this hub's own the fan-out still sends it. */
function wanted(ctx: HubContext, row: EventRow, holds: Map<string, HistoryStream>, acknowledged: number): boolean {
  const author = ctx.state.participants.get(row.from_id);
  if (!author || row.sender_seq === null || row.sender_epoch === null) return false;
  if (author.hubKey === undefined && row.seq > acknowledged) return false;
  return !isHeld(row, holds);
}

function authorOf(ctx: HubContext, participantId: string): HistoryAuthor | undefined {
  const participant = ctx.state.participants.get(participantId);
  if (!participant) return undefined;
  const local = participant.hubKey === undefined;
  const hubName = local ? hubNameOf(ctx.config) : (participant.hub ?? '');
  // A handle kept as handle@hubname (held on two hubs here) goes as the hub that hosts it names it.
  const handle = !local && hubName && participant.handle.endsWith(`@${hubName}`) ? participant.handle.slice(0, -hubName.length - 1) : participant.handle;
  return { key: rawKeyOf(participant), handle, kind: participant.kind, hub: local ? ctx.keys.hub().raw : parsePublicKey(participant.hubKey), hubName };
}
