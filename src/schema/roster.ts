/**
 * The roster (the trust anchor) as a JSON document: who belongs to the org,
 * with which permission role, signed by its admins. The JSON field is `role`;
 * its values are the `access` levels. What the signatures cover is the CBOR
 * form built in src/trust/roster.ts.
 */

import { z } from 'zod';
import { AccessSchema } from './access.js';

export const MAX_ROSTER_MEMBERS = 10_000;
export const MAX_ROSTER_SIGNATURES = 64;

export const PublicKeyTextSchema = z.string().regex(/^ed25519:[A-Za-z0-9_-]{43}$/, 'must be an "ed25519:" public key (43 base64url characters)');
/** 64 bytes in base64url without padding. */
export const SignatureTextSchema = z.string().regex(/^[A-Za-z0-9_-]{86}$/, 'must be a 64-byte signature in base64url without padding');

export const OrgIdSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(128, 'must be at most 128 characters')
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/, 'must be letters, digits, "_", ".", ":" or "-", starting with a letter or digit');

/** RFC 3339 in UTC (`2026-11-24T12:00:00Z`, optionally with fractions of a second), a real date. */
export const UtcTimestampSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/, 'must be an RFC 3339 UTC time such as 2026-11-24T12:00:00Z')
  .refine((t) => {
    const ms = Date.parse(t);
    return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 19) === t.slice(0, 19);
  }, 'must be a real date and time');

export const RosterMemberSchema = z.strictObject({
  pubkey: PublicKeyTextSchema,
  role: AccessSchema,
  /** Keeps history past the channels' retention (an archive peer). */
  archive: z.boolean().optional(),
  /** A hub of the org, not a participant: only hub members link with each other (src/peer). */
  kind: z.literal('hub', { error: 'must be "hub" (a hub of the org) or left out (a participant)' }).optional(),
});

export const RosterSignatureSchema = z.strictObject({
  pubkey: PublicKeyTextSchema,
  sig: SignatureTextSchema,
});

export const RosterSchema = z.strictObject({
  org_id: OrgIdSchema,
  version: z.number().int('must be a whole number').min(1, 'must be at least 1').max(Number.MAX_SAFE_INTEGER),
  timestamp: UtcTimestampSchema,
  members: z.array(RosterMemberSchema).min(1, 'must list at least one member').max(MAX_ROSTER_MEMBERS),
  /** Unsigned drafts (being edited) have none; an accepted roster has at least one. */
  signatures: z.array(RosterSignatureSchema).max(MAX_ROSTER_SIGNATURES).default([]),
});

export type RosterMember = z.output<typeof RosterMemberSchema>;
export type RosterSignature = z.output<typeof RosterSignatureSchema>;
export type Roster = z.output<typeof RosterSchema>;
