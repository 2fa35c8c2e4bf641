import { z } from 'zod';
import { ParleyError } from '../errors/parley-error.js';
import { SignedEventJsonSchema } from '../schema/envelope.js';
import { PublicKeyTextSchema, SignatureTextSchema, type Roster } from '../schema/roster.js';
import type { Access } from '../schema/access.js';
import { accessAtLeast } from '../schema/access.js';
import { eventFieldsFromJson, verifyEvent } from './envelope.js';
import { formatPublicKey, parsePublicKey } from './node-id.js';
import { EXPORT_ROSTER_DOMAIN, acceptRoster, memberOf, rosterSigningBytes } from './roster.js';

/**
 * A signed export (`parley export THREAD --signed`): JSON Lines that anyone can
 * check offline with `parley verify FILE`, without the hub.
 *
 *   1. a header: the thread, the exporting hub's key, whether a roster was in force;
 *   2. the rosters: the chain of versions the hub accepted (scope "org"), each
 *      signed by admins of the one before; and, when some events were written
 *      with no roster in force (local mode), one roster made for the export
 *      (scope "local") listing the hub's participants, signed by the hub's key
 *      under the export roster's domain (never a roster a hub takes): the
 *      trust in those events rests on that key;
 *   3. the events in order, each with its signed fields and signature.
 *
 * Keys held by a hub are custodial: a signature proves the hub that holds the
 * author's key vouched for the event, not that the author's own machine did.
 */
export const SIGNED_EXPORT_VERSION = 1;

export const ExportHeaderSchema = z.strictObject({
  type: z.literal('parley-export'),
  v: z.literal(SIGNED_EXPORT_VERSION),
  /** The exporting hub's key: in local mode, the key the whole export rests on. */
  hub: PublicKeyTextSchema,
  mode: z.enum(['local', 'roster']),
  thread: z.strictObject({ id: z.string().min(1), name: z.string(), kind: z.string() }),
  exported_at: z.string(),
});
export type ExportHeader = z.output<typeof ExportHeaderSchema>;

export const ExportRosterLineSchema = z.strictObject({ type: z.literal('roster'), scope: z.enum(['org', 'local']), roster: z.unknown() });

export const ExportEventLineSchema = z.strictObject({
  type: z.literal('event'),
  /** The hub's order; not signed. */
  seq: z.number().int().min(1),
  /** The author's handle on the exporting hub, for people reading the file; not signed. */
  author: z.string(),
  /** The roster version in force when the event was written; null in local mode. */
  roster_version: z.number().int().min(1).nullable(),
  event: SignedEventJsonSchema,
  /** Null for an event the hub could not sign (its author's key file was missing). */
  sig: SignatureTextSchema.nullable(),
});
export type ExportEventLine = z.output<typeof ExportEventLineSchema>;

/** The permission role an event's author needs for its kind (Meerkat's table). */
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
  /** The org roster versions checked, oldest first. */
  rosters: Array<{ org_id: string; version: number }>;
  /** Whether some events rest on the hub's key alone (written with no roster in force). */
  local: boolean;
  /** sender_seq gaps (pruned or never exported events): worth knowing, not a failure. */
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

/**
 * Checks a signed export line by line and stops at the first failure, naming
 * its line. Feed it every line in order (`line`), then call `finish`. Memory
 * holds the rosters and one counter per author, never the events.
 */
export class ExportVerifier {
  #lineNumber = 0;
  #header: ExportHeader | undefined;
  #hubKey: Buffer | undefined;
  readonly #anchor: Roster | undefined;
  readonly #noGaps: boolean;
  readonly #rosters = new Map<number, Roster>();
  #current: Roster | undefined;
  #local: Roster | undefined;
  #anchorSeen = false;
  #events = 0;
  #gaps = 0;
  readonly #authors = new Set<string>();
  readonly #lastSenderSeq = new Map<string, number>();
  readonly #ids = new Set<string>();

  /**
   * `anchor`: a roster the reader already trusts; the export's chain must include it.
   * `noGaps`: a gap in an author's sender_seq fails (events missing: pruned by retention, or taken out of the file).
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
    if (this.#header === undefined) return this.#readHeader(at, json);
    const type = (json as { type?: unknown } | null)?.type;
    if (type === 'roster') return this.#readRoster(at, json);
    if (type === 'event') return this.#readEvent(at, json);
    throw new VerifyFailure(at, `unknown line type ${JSON.stringify(type)} (expected "roster" or "event")`);
  }

  finish(): VerifyReport {
    const header = this.#header;
    if (header === undefined) throw new VerifyFailure(1, 'the file is empty; a signed export starts with a "parley-export" header');
    if (this.#anchor !== undefined && !this.#anchorSeen) {
      throw new VerifyFailure(this.#lineNumber, `the export's rosters do not include the roster you trust (${this.#anchor.org_id} version ${this.#anchor.version})`);
    }
    return {
      thread: header.thread,
      hub: header.hub,
      mode: header.mode,
      events: this.#events,
      authors: this.#authors.size,
      rosters: [...this.#rosters.values()].map((r) => ({ org_id: r.org_id, version: r.version })),
      local: this.#local !== undefined,
      gaps: this.#gaps,
    };
  }

  #readHeader(at: number, json: unknown): void {
    const parsed = ExportHeaderSchema.safeParse(json);
    if (!parsed.success) throw new VerifyFailure(at, `not a Parley signed export header (${issueOf(parsed.error)})`);
    this.#header = parsed.data;
    this.#hubKey = parsePublicKey(parsed.data.hub, 'hub');
  }

  #readRoster(at: number, json: unknown): void {
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
      const hub = formatPublicKey(this.#hubKey!);
      if (!roster.signatures.some((s) => s.pubkey === hub) || memberOf(roster, this.#hubKey!)?.access !== 'admin') {
        throw new VerifyFailure(at, `the local roster is not signed by the exporting hub's key ${hub} as an admin`);
      }
      // Against a roster the reader trusts, the hub's key counts only if that roster makes it an admin.
      if (this.#anchor !== undefined && memberOf(this.#anchor, this.#hubKey!)?.access !== 'admin') {
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

  #readEvent(at: number, json: unknown): void {
    const line = ExportEventLineSchema.safeParse(json);
    if (!line.success) throw new VerifyFailure(at, `a malformed event line (${issueOf(line.error)})`);
    const { event, sig, seq, roster_version: rosterVersion } = line.data;
    const what = `event ${event.id} (seq ${seq}) by ${line.data.author ? `@${line.data.author} ` : ''}${event.from}`;
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
    const header = this.#header!;
    if (event.thread !== header.thread.id) throw new VerifyFailure(at, `${what}: belongs to thread ${event.thread}, not the exported ${header.thread.id}`);
    if (this.#ids.has(event.id)) throw new VerifyFailure(at, `${what}: the id appears twice (a replayed event)`);
    this.#ids.add(event.id);
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
    // sender_seq only grows per author and epoch; a gap is events pruned or left out.
    const counter = `${event.from} ${event.sender_epoch}`;
    const last = this.#lastSenderSeq.get(counter);
    if (last !== undefined && event.sender_seq <= last) {
      throw new VerifyFailure(at, `${what}: sender_seq ${event.sender_seq} after ${last} in the same epoch (replayed or reordered)`);
    }
    if (last !== undefined && event.sender_seq > last + 1) {
      if (this.#noGaps) throw new VerifyFailure(at, `${what}: sender_seq ${event.sender_seq} after ${last}: ${event.sender_seq - last - 1} of the author's events are missing (pruned by retention, or taken out of the file)`);
      this.#gaps += 1;
    }
    this.#lastSenderSeq.set(counter, event.sender_seq);
    this.#authors.add(event.from);
    this.#events += 1;
  }
}

function issueOf(error: z.ZodError): string {
  const issue = error.issues[0];
  const path = (issue?.path ?? []).map(String).join('.');
  return `${path === '' ? '' : `${path}: `}${issue?.message ?? 'invalid'}`;
}
