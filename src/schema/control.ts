/**
 * Steering controls, in the shapes of a control event: an object with exactly
 * one key. Inputs name participants by handle; the stored event names them by
 * participant id.
 */

import { z } from 'zod';
import { ParleyError, parseInput } from '../errors/parley-error.js';
import { MAX_POLICY_SELECTORS, SelectorSchema, type ChannelPolicy } from './channel-policy.js';
import { HandleSchema, ParticipantRefSchema } from './names.js';
import { ProfilePatchSchema } from './participant.js';

const Targets = z.array(ParticipantRefSchema).min(1, 'must name at least one participant').max(64);

/**
 * Who a channel access policy lists, as written: "@handle" (a participant of
 * the session, stored by key), "ed25519:…", a role name (observer, member,
 * operator, admin: that role and above), or a stored selector object.
 */
const SelectorInput = z.union([z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters'), SelectorSchema]);
const SelectorInputs = z.array(SelectorInput).max(MAX_POLICY_SELECTORS, `must list at most ${MAX_POLICY_SELECTORS}`);
const Positive = z.number().int('must be a whole number').min(1, 'must be at least 1').max(Number.MAX_SAFE_INTEGER);

/** The value of each control kind. */
export const CONTROL_VALUE_SCHEMAS = {
  mute: z.strictObject({ targets: Targets, mode: z.literal('hard').default('hard') }),
  unmute: z.strictObject({ targets: Targets }),
  pause: z.strictObject({ on: z.boolean() }),
  prod: Targets,
  done: z.boolean(),
  ttl_seconds: z.number().int().min(1).max(365 * 24 * 3600).nullable(),
  discussion: z.strictObject({ on: z.boolean(), allow_agent_mentions: z.boolean().optional() }),
  invited_auto: z.strictObject({ on: z.boolean() }),
  invite: z.strictObject({ participant_id: HandleSchema, profile: ProfilePatchSchema.optional() }),
  /** A pinned thread keeps its whole history: retention prunes nothing of it. */
  pin: z.strictObject({ on: z.boolean() }),
  /**
   * A channel access policy (see src/trust/channel-policy.ts). The hub fills in
   * the thread and the next version and signs it with the setter's key; a field
   * left out keeps the current policy's value (the first time: the role table's
   * equivalent for the lists, the schema's defaults for the rest).
   */
  access: z.strictObject({
    readers: SelectorInputs.optional(),
    writers: SelectorInputs.optional(),
    admins: SelectorInputs.optional(),
    retention_hours: Positive.optional(),
    retention_messages: Positive.optional(),
    allow_history_fetch: z.boolean().optional(),
  }),
} as const;

export type ControlKind = keyof typeof CONTROL_VALUE_SCHEMAS;
export const CONTROL_KINDS = Object.keys(CONTROL_VALUE_SCHEMAS) as ControlKind[];

export const ControlInputSchema = z.union([
  z.strictObject({ mute: CONTROL_VALUE_SCHEMAS.mute }),
  z.strictObject({ unmute: CONTROL_VALUE_SCHEMAS.unmute }),
  z.strictObject({ pause: CONTROL_VALUE_SCHEMAS.pause }),
  z.strictObject({ prod: CONTROL_VALUE_SCHEMAS.prod }),
  z.strictObject({ done: CONTROL_VALUE_SCHEMAS.done }),
  z.strictObject({ ttl_seconds: CONTROL_VALUE_SCHEMAS.ttl_seconds }),
  z.strictObject({ discussion: CONTROL_VALUE_SCHEMAS.discussion }),
  z.strictObject({ invited_auto: CONTROL_VALUE_SCHEMAS.invited_auto }),
  z.strictObject({ invite: CONTROL_VALUE_SCHEMAS.invite }),
  z.strictObject({ pin: CONTROL_VALUE_SCHEMAS.pin }),
  z.strictObject({ access: CONTROL_VALUE_SCHEMAS.access }),
]);
export type ControlInput = z.input<typeof ControlInputSchema>;
export type ControlParsed = z.output<typeof ControlInputSchema>;

/**
 * Parses a control by its one key, so that an error names the exact field
 * (`control.pause.on`) instead of "no union member matched".
 */
export function parseControl(input: unknown, field = 'control'): ControlParsed {
  const kinds = CONTROL_KINDS.join(', ');
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new ParleyError('INVALID_INPUT', `Invalid ${field}: must be an object with exactly one of ${kinds}.`, { field });
  }
  const keys = Object.keys(input);
  const kind = keys[0];
  if (keys.length !== 1 || kind === undefined || !(CONTROL_KINDS as string[]).includes(kind)) {
    const got = keys.length === 0 ? 'nothing' : keys.map((k) => `"${k}"`).join(', ');
    throw new ParleyError('INVALID_INPUT', `Invalid ${field}: got ${got}; give exactly one of ${kinds}.`, { field });
  }
  const value = parseInput(CONTROL_VALUE_SCHEMAS[kind as ControlKind], (input as Record<string, unknown>)[kind], `${field}.${kind}`);
  return { [kind]: value } as ControlParsed;
}

export function controlKindOf(control: ControlParsed): ControlKind {
  return Object.keys(control)[0] as ControlKind;
}

/** A thread's steering state, derived from its control events. */
export interface ThreadControlState {
  paused: boolean;
  pausedBy?: string;
  done: boolean;
  doneBy?: string;
  ttlSeconds?: number;
  /** ISO time after which the thread counts as done (set by ttl_seconds). */
  expiresAt?: string;
  discussion?: { on: boolean; allowAgentMentions: boolean; by: string };
  invitedAuto: boolean;
  invitedAutoBy?: string;
  /** Pinned threads are never pruned by retention. */
  pinned: boolean;
  pinnedBy?: string;
  /** The channel's access policy in force, as its signed control stored it (none: the role table alone decides). */
  access?: SignedChannelPolicy;
  /** Side channels: open or closed with a summary. */
  closed: boolean;
  summary?: string;
}

/** A channel access policy with its signer's key and signature (the `access` control event's content). */
export interface SignedChannelPolicy {
  policy: ChannelPolicy;
  /** "ed25519:…" of the admin who set it. */
  signer: string;
  /** Base64url Ed25519 signature over policySigningBytes(policy). */
  sig: string;
}

export function initialControlState(): ThreadControlState {
  return { paused: false, done: false, invitedAuto: false, pinned: false, closed: false };
}
