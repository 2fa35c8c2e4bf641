import type { KeyObject } from 'node:crypto';
import { ParleyError } from '../errors/parley-error.js';
import type { Access } from '../schema/access.js';
import { RosterSchema, type Roster, type RosterSignature } from '../schema/roster.js';
import { canonicalEncode } from './cbor.js';
import { cachedPublicKey, formatPublicKey, parsePublicKey, rawPublicKeyOf } from './node-id.js';
import { ed25519Sign, ed25519Verify } from './ed25519.mjs';

export type { Roster, RosterMember, RosterSignature } from '../schema/roster.js';

/**
 * The roster: the org's signed list of members and their permission roles,
 * the only trust anchor. Frozen v1 signed form: the CBOR array
 *   ["parley/roster/v1", org_id, version, timestamp (the text as written),
 *    members sorted by raw key bytes, each [key bytes(32), role, archive bool]]
 * (a missing `archive` is signed as false); a hub member's entry ends with a
 * fourth item, "hub", so rosters without hubs sign as they always have.
 * Signatures are Ed25519 over those bytes, with no pre-hash; they are not
 * part of what is signed.
 *
 * The roster a signed export carries for events written in local mode is
 * signed the same way under its own domain, so that it vouches for that
 * export only: a hub never puts it in force (its signature does not verify
 * as a roster's), whoever hands it in.
 */
export const ROSTER_DOMAIN = 'parley/roster/v1';
export const EXPORT_ROSTER_DOMAIN = 'parley/export-roster/v1';
export type RosterDomain = typeof ROSTER_DOMAIN | typeof EXPORT_ROSTER_DOMAIN;

function invalid(message: string, field?: string, details?: Record<string, unknown>): ParleyError {
  return new ParleyError('ROSTER_INVALID', message, { ...(field ? { field } : {}), ...(details ? { details } : {}) });
}

/** A roster document, validated: every key in its one spelling, no member or signer listed twice. ROSTER_INVALID names the field. */
export function parseRoster(input: unknown): Roster {
  const parsed = RosterSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = (issue?.path ?? []).map(String);
    if (issue?.code === 'unrecognized_keys' && issue.keys[0] !== undefined) path.push(issue.keys[0]);
    const field = path.join('.') || 'roster';
    const reason = issue?.code === 'unrecognized_keys' ? 'unknown field (a roster has org_id, version, timestamp, members and signatures)' : (issue?.message ?? 'invalid');
    throw invalid(`Invalid roster field ${field}: ${reason}.`, field);
  }
  const roster = parsed.data;
  const seen = new Set<string>();
  roster.members.forEach((member, i) => {
    canonicalKey(member.pubkey, `members.${i}.pubkey`);
    if (seen.has(member.pubkey)) throw invalid(`Invalid roster: ${member.pubkey} is listed twice in members (at ${i}); list each key once.`, `members.${i}.pubkey`);
    seen.add(member.pubkey);
  });
  const signers = new Set<string>();
  roster.signatures.forEach((signature, i) => {
    canonicalKey(signature.pubkey, `signatures.${i}.pubkey`);
    // Like keys, a signature has one spelling (base64url leaves 4 spare bits in its last character).
    if (Buffer.from(signature.sig, 'base64url').toString('base64url') !== signature.sig) {
      throw invalid(`Invalid roster field signatures.${i}.sig: not the canonical spelling of a 64-byte signature; sign again.`, `signatures.${i}.sig`);
    }
    if (signers.has(signature.pubkey)) throw invalid(`Invalid roster: ${signature.pubkey} signed twice (at ${i}); keep one signature per key.`, `signatures.${i}.pubkey`);
    signers.add(signature.pubkey);
  });
  return roster;
}

function canonicalKey(text: string, field: string): Buffer {
  try {
    return parsePublicKey(text, field);
  } catch (error) {
    throw invalid(`Invalid roster field ${field}: ${(error as Error).message.replace(/^Invalid [^:]+: /, '')}`, field);
  }
}

/** The bytes roster signatures are over: a hub's roster, or (EXPORT_ROSTER_DOMAIN) an export's. */
export function rosterSigningBytes(roster: Roster, domain: RosterDomain = ROSTER_DOMAIN): Uint8Array {
  const members = roster.members
    .map((m) => ({ raw: parsePublicKey(m.pubkey, 'members.pubkey'), role: m.role, archive: m.archive === true, hub: m.kind === 'hub' }))
    .sort((a, b) => Buffer.compare(a.raw, b.raw))
    .map((m) => (m.hub ? [m.raw, m.role, m.archive, 'hub'] : [m.raw, m.role, m.archive]));
  return canonicalEncode([domain, roster.org_id, roster.version, roster.timestamp, members], 'roster');
}

/** The roster with `privateKey`'s signature added, or replacing that key's earlier one. */
export function signRoster(roster: Roster, privateKey: KeyObject, domain: RosterDomain = ROSTER_DOMAIN): Roster {
  const doc = parseRoster(roster);
  const pubkey = formatPublicKey(rawPublicKeyOf(privateKey));
  const sig = ed25519Sign(rosterSigningBytes(doc, domain), privateKey).toString('base64url');
  const signatures = doc.signatures.filter((s) => s.pubkey !== pubkey);
  return { ...doc, signatures: [...signatures, { pubkey, sig }] };
}

/** Whether one signature on the roster verifies against the key it names. */
export function verifyRosterSignature(roster: Roster, signature: RosterSignature, bytes: Uint8Array = rosterSigningBytes(roster)): boolean {
  const sig = Buffer.from(signature.sig, 'base64url');
  if (sig.length !== 64) return false;
  return ed25519Verify(bytes, cachedPublicKey(parsePublicKey(signature.pubkey, 'signatures.pubkey')), sig);
}

const memberIndexes = new WeakMap<Roster, Map<string, { access: Access; archive: boolean }>>();

/** A member's permission role and archive flag, by raw key; undefined for a key not in the roster. */
export function memberOf(roster: Roster, raw: Uint8Array): { access: Access; archive: boolean } | undefined {
  let index = memberIndexes.get(roster);
  if (index === undefined) {
    index = new Map(roster.members.map((m) => [m.pubkey, { access: m.role, archive: m.archive === true }]));
    memberIndexes.set(roster, index);
  }
  return index.get(formatPublicKey(raw));
}

/**
 * Accepts `next` as the roster in force after `current`, or refuses it with the
 * reason. Rules: the same org; a higher version (else ROSTER_ROLLBACK); signed;
 * every signature valid (else BAD_SIGNATURE naming the signer); every signer an
 * admin of `current` (so only admins change the roster), or of `next` itself
 * when there is no current roster (the first one is trusted on first use: the
 * operator put the file in place); and at least one admin left in `next`, or
 * the org could never change it again. `domain`: what the signatures must be
 * for (an export's roster is checked under EXPORT_ROSTER_DOMAIN, and is never
 * accepted as a hub's roster).
 */
export function acceptRoster(current: Roster | undefined, next: unknown, domain: RosterDomain = ROSTER_DOMAIN): Roster {
  const doc = parseRoster(next);
  if (current !== undefined) {
    if (doc.org_id !== current.org_id) {
      throw invalid(`Roster refused: it is for org "${doc.org_id}", but the roster in force is for "${current.org_id}".`, 'org_id', {
        org_id: doc.org_id,
        current: current.org_id,
      });
    }
    if (doc.version <= current.version) {
      throw new ParleyError(
        'ROSTER_ROLLBACK',
        `Roster refused: version ${doc.version} is not newer than version ${current.version} in force (rollback protection). Bump the version of the new roster and sign it again.`,
        { field: 'version', details: { version: doc.version, current: current.version } },
      );
    }
  }
  const authority = current ?? doc;
  if (doc.signatures.length === 0) {
    throw invalid(`Roster refused: version ${doc.version} is unsigned; an admin of version ${authority.version} must sign it ("parley roster sign").`, 'signatures');
  }
  const bytes = rosterSigningBytes(doc, domain);
  doc.signatures.forEach((signature, i) => {
    if (!verifyRosterSignature(doc, signature, bytes)) {
      const other = domain === ROSTER_DOMAIN ? EXPORT_ROSTER_DOMAIN : ROSTER_DOMAIN;
      const why = verifyRosterSignature(doc, signature, rosterSigningBytes(doc, other))
        ? other === EXPORT_ROSTER_DOMAIN
          ? `it was signed as the roster of a signed export (${EXPORT_ROSTER_DOMAIN}), which vouches for that export only and is never put in force`
          : `it was signed as a hub's roster (${ROSTER_DOMAIN}), not as the roster of a signed export`
        : 'the roster was changed after it was signed, or signed by another key';
      throw new ParleyError('BAD_SIGNATURE', `Roster refused: the signature by ${signature.pubkey} does not verify (${why}). Sign it again.`, {
        field: `signatures.${i}`,
        details: { signer: signature.pubkey },
      });
    }
  });
  doc.signatures.forEach((signature, i) => {
    const signer = memberOf(authority, parsePublicKey(signature.pubkey));
    if (signer?.access !== 'admin') {
      const who = signer === undefined ? `not a member of version ${authority.version}` : `${signer.access} in version ${authority.version}`;
      throw invalid(`Roster refused: signed by ${signature.pubkey}, who is ${who}; only an admin of version ${authority.version} may sign a new roster.`, `signatures.${i}`, {
        signer: signature.pubkey,
        role: signer?.access ?? null,
        version: authority.version,
      });
    }
  });
  if (!doc.members.some((m) => m.role === 'admin')) {
    throw invalid(`Roster refused: version ${doc.version} has no admin, so no one could ever change it again. Keep at least one admin.`, 'members');
  }
  return doc;
}
