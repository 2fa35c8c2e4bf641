/**
 * `parley verify`: checks a signed export (format in src/schema/signed-export.ts)
 * offline, without the hub. It trusts nothing the file says unsigned: the
 * thread and the authors' handles come from the header the hub signed, which
 * events the file must hold from the trailer the hub signed, each event from
 * its author's signature, and each author's standing from the signed rosters.
 *
 * Keys held by a hub are custodial: a signature proves the hub that holds the
 * author's key vouched for the event, not that the author's own machine did.
 */

import type { z } from 'zod';
import { ParleyError } from '../errors/parley-error.js';
import type { Access } from '../schema/access.js';
import { accessAtLeast } from '../schema/access.js';
import type { Roster } from '../schema/roster.js';
import {
  EXPORT_HEADER_TYPE,
  EXPORT_TRAILER_TYPE,
  ExportEventLineSchema,
  ExportHeaderSchema,
  ExportRosterLineSchema,
  ExportTrailerSchema,
  SIGNED_EXPORT_VERSION,
  type ExportHeader,
} from '../schema/signed-export.js';
import { eventFieldsFromJson, verifyEvent } from './envelope.js';
import { ExportChain, headerSigningBytes, trailerSigningBytes, verifySeal } from './export-seal.js';
import { formatPublicKey, parsePublicKey } from './node-id.js';
import { EXPORT_ROSTER_DOMAIN, acceptRoster, memberOf, rosterSigningBytes } from './roster.js';

/** The permission role an event's author needs for its kind (the role table). */
export function accessNeededFor(kind: string): Access {
  if (kind === 'request') return 'operator';
  if (kind === 'control') return 'admin';
  return 'member';
}

export interface VerifyReport {
  thread: ExportHeader['thread'];
  hub: string;
  mode: 'local' | 'roster';
  events: number;
  authors: number;
  /** The handles of the authors of the events checked, as the hub signed them in the header. */
  handles: string[];
  first_seq: number;
  last_seq: number;
  /** The org roster versions checked, oldest first. */
  rosters: Array<{ org_id: string; version: number }>;
  /** Whether some events rest on the hub's key alone (written with no roster in force). */
  local: boolean;
  /** sender_seq gaps (pruned by retention before the export): worth knowing, not a failure. */
  gaps: number;
}

/** Where and why a signed export does not verify. */
export class VerifyFailure extends Error {
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
    this.name = 'VerifyFailure';
  }
}

/** What the header vouches for, once its signature verified. */
interface Sealed {
  header: ExportHeader;
  hubKey: Buffer;
  /** Handle by `ed25519:` key, as the hub signed it. */
  handles: Map<string, string>;
  chain: ExportChain;
}

/**
 * Checks a signed export line by line and stops at the first failure, naming
 * its line. Feed it every line in order (`line`), then call `finish`. Memory
 * holds the rosters and one counter per author, never the events.
 */
export class ExportVerifier {
  #lineNumber = 0;
  #sealed: Sealed | undefined;
  #ended = false;
  readonly #anchor: Roster | undefined;
  readonly #noGaps: boolean;
  readonly #rosters = new Map<number, Roster>();
  #current: Roster | undefined;
  #local: Roster | undefined;
  #anchorSeen = false;
  #events = 0;
  #firstSeq: number | undefined;
  #lastSeq: number | undefined;
  #gaps = 0;
  readonly #authors = new Set<string>();
  readonly #lastSenderSeq = new Map<string, number>();
  readonly #ids = new Set<string>();

  /**
   * `anchor`: a roster the reader already trusts; the export's chain must include it.
   * `noGaps`: a gap in an author's sender_seq fails (events the hub no longer held when it exported: pruned by retention).
   */
  constructor(options: { anchor?: Roster; noGaps?: boolean } = {}) {
    this.#anchor = options.anchor;
    this.#noGaps = options.noGaps === true;
  }

  line(text: string): void {
    this.#lineNumber += 1;
    const at = this.#lineNumber;
    if (text.trim() === '') throw new VerifyFailure(at, 'an empty line; a signed export has one JSON object per line');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new VerifyFailure(at, 'not JSON; a signed export has one JSON object per line');
    }
    if (this.#sealed === undefined) return this.#readHeader(at, json, text);
    if (this.#ended) throw new VerifyFailure(at, 'a line after the trailer; the hub ends a signed export with it');
    const type = (json as { type?: unknown } | null)?.type;
    if (type === EXPORT_TRAILER_TYPE) return this.#readTrailer(at, json, this.#sealed);
    if (type === 'roster') this.#readRoster(at, json, this.#sealed);
    else if (type === 'event') this.#readEvent(at, json, this.#sealed);
    else throw new VerifyFailure(at, `unknown line type ${JSON.stringify(type)} (expected "roster", "event" or "${EXPORT_TRAILER_TYPE}")`);
    this.#sealed.chain.add(text);
  }

  finish(): VerifyReport {
    const sealed = this.#sealed;
    if (sealed === undefined) throw new VerifyFailure(1, `the file is empty; a signed export starts with a "${EXPORT_HEADER_TYPE}" header`);
    if (!this.#ended) {
      throw new VerifyFailure(this.#lineNumber, `the export ends without the trailer the hub signs ("${EXPORT_TRAILER_TYPE}"): it was cut short, so events may be missing at its end`);
    }
    if (this.#anchor !== undefined && !this.#anchorSeen) {
      throw new VerifyFailure(this.#lineNumber, `the export's rosters do not include the roster you trust (${this.#anchor.org_id} version ${this.#anchor.version})`);
    }
    return {
      thread: sealed.header.thread,
      hub: sealed.header.hub,
      mode: sealed.header.mode,
      events: this.#events,
      authors: this.#authors.size,
      handles: [...this.#authors].map((key) => sealed.handles.get(key)!),
      first_seq: this.#firstSeq!,
      last_seq: this.#lastSeq!,
      rosters: [...this.#rosters.values()].map((r) => ({ org_id: r.org_id, version: r.version })),
      local: this.#local !== undefined,
      gaps: this.#gaps,
    };
  }

  #readHeader(at: number, json: unknown, text: string): void {
    const claimed = json as { type?: unknown; v?: unknown } | null;
    if (claimed?.type === EXPORT_HEADER_TYPE && claimed.v !== SIGNED_EXPORT_VERSION) {
      throw new VerifyFailure(
        at,
        `an export in format v${String(claimed.v)}, made by an older Parley: it has no signed header and trailer, so its thread name, its authors' handles and which events it holds are vouched for by no one. Export the thread again with this version ("parley export THREAD --signed").`,
      );
    }
    const parsed = ExportHeaderSchema.safeParse(json);
    if (!parsed.success) throw new VerifyFailure(at, `not a Parley signed export header (${issueOf(parsed.error)})`);
    const header = parsed.data;
    const hubKey = parsePublicKey(header.hub, 'hub');
    const handles = new Map<string, string>();
    for (const author of header.authors) {
      if (handles.has(author.key)) throw new VerifyFailure(at, `the header lists the author ${author.key} twice`);
      handles.set(author.key, author.handle);
    }
    let signed: boolean;
    try {
      signed = verifySeal(headerSigningBytes(header), hubKey, header.sig);
    } catch (error) {
      throw new VerifyFailure(at, `a malformed header (${error instanceof ParleyError ? error.message : String(error)})`);
    }
    if (!signed) {
      throw new VerifyFailure(at, `the header's signature by the hub key ${header.hub} does not verify: its thread, mode, authors or date were changed after the hub signed it`);
    }
    this.#sealed = { header, hubKey, handles, chain: new ExportChain(text) };
  }

  #readTrailer(at: number, json: unknown, sealed: Sealed): void {
    const parsed = ExportTrailerSchema.safeParse(json);
    if (!parsed.success) throw new VerifyFailure(at, `a malformed trailer (${issueOf(parsed.error)})`);
    const trailer = parsed.data;
    if (!verifySeal(trailerSigningBytes(trailer), sealed.hubKey, trailer.sig)) {
      throw new VerifyFailure(at, `the trailer's signature by the hub key ${sealed.header.hub} does not verify: its count, seqs or chain were changed after the hub signed it`);
    }
    this.#ended = true;
    if (trailer.thread !== sealed.header.thread.id) throw new VerifyFailure(at, `the trailer is for thread ${trailer.thread}, not the exported ${sealed.header.thread.id}`);
    if (this.#events === 0) {
      throw new VerifyFailure(at, `the export holds no events (the hub exported ${trailer.events}); there is nothing to verify`);
    }
    if (trailer.first_seq !== this.#firstSeq) {
      throw new VerifyFailure(at, `the first event here has seq ${this.#firstSeq}, but the hub exported from seq ${trailer.first_seq}: events were taken out of the start`);
    }
    if (trailer.last_seq !== this.#lastSeq) {
      throw new VerifyFailure(at, `the last event here has seq ${this.#lastSeq}, but the hub exported up to seq ${trailer.last_seq}: events were taken out of the end`);
    }
    if (trailer.events !== this.#events) {
      throw new VerifyFailure(at, `the export holds ${this.#events} events, but the hub exported ${trailer.events}: events were taken out or added`);
    }
    if (trailer.chain !== sealed.chain.value) {
      throw new VerifyFailure(at, 'the lines do not match the hash chain the hub signed: a line between the header and the trailer was changed, added, removed or moved');
    }
  }

  #readRoster(at: number, json: unknown, sealed: Sealed): void {
    const line = ExportRosterLineSchema.safeParse(json);
    if (!line.success) throw new VerifyFailure(at, `a malformed roster line (${issueOf(line.error)})`);
    if (this.#events > 0) throw new VerifyFailure(at, 'a roster after the events; rosters come first');
    const local = line.data.scope === 'local';
    if (local && this.#local !== undefined) throw new VerifyFailure(at, 'a second local roster');
    let roster: Roster;
    try {
      roster = local ? acceptRoster(undefined, line.data.roster, EXPORT_ROSTER_DOMAIN) : acceptRoster(this.#current, line.data.roster);
    } catch (error) {
      throw new VerifyFailure(at, `roster refused: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (local) {
      // The local roster rests on the hub's key alone: it must have signed it, as an admin.
      const hub = sealed.header.hub;
      if (!roster.signatures.some((s) => s.pubkey === hub) || memberOf(roster, sealed.hubKey)?.access !== 'admin') {
        throw new VerifyFailure(at, `the local roster is not signed by the exporting hub's key ${hub} as an admin`);
      }
      // Against a roster the reader trusts, the hub's key counts only if that roster makes it an admin.
      if (this.#anchor !== undefined && memberOf(this.#anchor, sealed.hubKey)?.access !== 'admin') {
        throw new VerifyFailure(at, `events written with no roster rest on the hub key ${hub}, which is not an admin of the roster you trust (${this.#anchor.org_id} version ${this.#anchor.version})`);
      }
      this.#local = roster;
      return;
    }
    if (this.#anchor !== undefined && roster.org_id === this.#anchor.org_id && roster.version === this.#anchor.version) {
      if (!Buffer.from(rosterSigningBytes(roster)).equals(Buffer.from(rosterSigningBytes(this.#anchor)))) {
        throw new VerifyFailure(at, `roster ${roster.org_id} version ${roster.version} differs from the one you trust`);
      }
      this.#anchorSeen = true;
    }
    this.#rosters.set(roster.version, roster);
    this.#current = roster;
  }

  #readEvent(at: number, json: unknown, sealed: Sealed): void {
    const line = ExportEventLineSchema.safeParse(json);
    if (!line.success) throw new VerifyFailure(at, `a malformed event line (${issueOf(line.error)})`);
    const { event, sig, seq, roster_version: rosterVersion } = line.data;
    // Named only from signed data: the event's key, and the handle the hub signed for it.
    const handle = sealed.handles.get(event.from);
    const what = `event ${event.id} (seq ${seq}) by ${handle === undefined ? '' : `@${handle} `}${event.from}`;
    let fields;
    try {
      fields = eventFieldsFromJson(event);
    } catch (error) {
      throw new VerifyFailure(at, `${what}: ${error instanceof ParleyError ? error.message : String(error)}`);
    }
    if (sig === null) throw new VerifyFailure(at, `${what}: unsigned (the hub could not read its author's key when it was written)`);
    if (!verifyEvent(fields, Buffer.from(sig, 'base64url'))) {
      throw new VerifyFailure(at, `${what}: the signature does not verify (a signed field was changed, or another key signed it)`);
    }
    if (handle === undefined) throw new VerifyFailure(at, `${what}: its author is not among the authors the hub signed in the header`);
    if (line.data.author !== handle) {
      throw new VerifyFailure(at, `${what}: the line names its author @${line.data.author}, but the hub signed this key as @${handle} (the unsigned "author" was changed)`);
    }
    const thread = sealed.header.thread;
    if (event.thread !== thread.id && !(thread.signed_as ?? []).includes(event.thread)) {
      throw new VerifyFailure(at, `${what}: belongs to thread ${event.thread}, not the exported ${thread.id} (nor one the hub signed it as on a linked hub)`);
    }
    if (this.#ids.has(event.id)) throw new VerifyFailure(at, `${what}: the id appears twice (a replayed event)`);
    this.#ids.add(event.id);
    if (this.#lastSeq !== undefined && seq <= this.#lastSeq) throw new VerifyFailure(at, `${what}: seq ${seq} after seq ${this.#lastSeq}; the hub writes events in order`);
    // Membership: of the roster in force when it was written, or, written with none (local mode), of the hub's local roster.
    // Against a roster the reader trusts, only it and the versions it led to vouch: older ones are the file's word alone.
    if (this.#anchor !== undefined && rosterVersion !== null && rosterVersion < this.#anchor.version) {
      throw new VerifyFailure(at, `${what}: written under roster version ${rosterVersion}, older than the roster you trust (version ${this.#anchor.version}); verify against that older roster instead`);
    }
    const roster = rosterVersion === null ? this.#local : this.#rosters.get(rosterVersion);
    if (roster === undefined) {
      throw new VerifyFailure(at, `${what}: written ${rosterVersion === null ? 'with no roster in force, and the export has no local roster' : `under roster version ${rosterVersion}, which the export does not include`}`);
    }
    const member = memberOf(roster, fields.from);
    if (member === undefined) throw new VerifyFailure(at, `${what}: the author is not in roster ${roster.org_id} version ${roster.version}`);
    // Roles are checked against the org's signed roster; in local mode no roles were signed when the event was written.
    if (rosterVersion !== null) {
      const need = accessNeededFor(event.kind);
      if (!accessAtLeast(member.access, need)) {
        throw new VerifyFailure(at, `${what}: a ${event.kind} needs ${need}, and the author was ${member.access} in roster version ${roster.version}`);
      }
    }
    // sender_seq only grows per author and epoch; a gap is events pruned before the export (the chain covers the file).
    const counter = `${event.from} ${event.sender_epoch}`;
    const last = this.#lastSenderSeq.get(counter);
    if (last !== undefined && event.sender_seq <= last) {
      throw new VerifyFailure(at, `${what}: sender_seq ${event.sender_seq} after ${last} in the same epoch (replayed or reordered)`);
    }
    if (last !== undefined && event.sender_seq > last + 1) {
      if (this.#noGaps) throw new VerifyFailure(at, `${what}: sender_seq ${event.sender_seq} after ${last}: ${event.sender_seq - last - 1} of the author's events are missing (pruned by retention before the export)`);
      this.#gaps += 1;
    }
    this.#lastSenderSeq.set(counter, event.sender_seq);
    this.#authors.add(formatPublicKey(fields.from));
    this.#events += 1;
    this.#firstSeq ??= seq;
    this.#lastSeq = seq;
  }
}

function issueOf(error: z.ZodError): string {
  const issue = error.issues[0];
  const path = (issue?.path ?? []).map(String).join('.');
  return `${path === '' ? '' : `${path}: `}${issue?.message ?? 'invalid'}`;
}
