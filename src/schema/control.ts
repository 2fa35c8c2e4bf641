import { z } from 'zod';
import { HandleSchema } from './names.js';
import { ProfileSchema } from './participant.js';

/**
 * Steering controls (Agent Bridge), in the shapes of its spec: an object with
 * exactly one key. Inputs name participants by handle; the stored event names
 * them by participant id.
 */
const Targets = z.array(HandleSchema).min(1, 'must name at least one participant').max(64);

export const ControlInputSchema = z.union([
  z.strictObject({ mute: z.strictObject({ targets: Targets, mode: z.literal('hard').default('hard') }) }),
  z.strictObject({ unmute: z.strictObject({ targets: Targets }) }),
  z.strictObject({ pause: z.strictObject({ on: z.boolean() }) }),
  z.strictObject({ prod: Targets }),
  z.strictObject({ done: z.boolean() }),
  z.strictObject({ ttl_seconds: z.number().int().min(1).max(365 * 24 * 3600).nullable() }),
  z.strictObject({
    discussion: z.strictObject({ on: z.boolean(), allow_agent_mentions: z.boolean().optional() }),
  }),
  z.strictObject({ invited_auto: z.strictObject({ on: z.boolean() }) }),
  z.strictObject({
    invite: z.strictObject({ participant_id: HandleSchema, profile: ProfileSchema.partial({ kind: true, roles: true }).optional() }),
  }),
]);
export type ControlInput = z.input<typeof ControlInputSchema>;
export type ControlParsed = z.output<typeof ControlInputSchema>;

export const CONTROL_KINDS = ['mute', 'unmute', 'pause', 'prod', 'done', 'ttl_seconds', 'discussion', 'invited_auto', 'invite'] as const;
export type ControlKind = (typeof CONTROL_KINDS)[number];

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
  /** Side channels: open or closed with a summary. */
  closed: boolean;
  summary?: string;
}

export function initialControlState(): ThreadControlState {
  return { paused: false, done: false, invitedAuto: false, closed: false };
}
