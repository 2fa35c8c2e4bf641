import { z } from 'zod';
import { HandleSchema } from './names.js';
import { oneLineText } from './text.js';

export const ParticipantKindSchema = z.enum(['agent', 'human']);
export type ParticipantKind = z.infer<typeof ParticipantKindSchema>;

const shortText = (max: number) => z.string().trim().min(1).max(max).check(oneLineText);

/**
 * What wakes a participant (ends its `wait`): `all` — everything in its inbox
 * but muted threads, channel messages included (the default wake rule); `addressed` —
 * only what is addressed to it (DMs, mentions, requests, responses, prods,
 * invites, controls), so a busy channel does not keep it awake; its channel
 * messages still wait in the inbox to be read.
 */
export const WakeOnSchema = z.enum(['all', 'addressed']);
export type WakeOn = z.infer<typeof WakeOnSchema>;

/** What others need to know to interpret who is speaking (the participant profile). */
const profileFields = {
  client: shortText(64).optional(),
  model: shortText(128).optional(),
  nickname: shortText(64).optional(),
  /** Unset: the hub's default (`agents.wakeOn` for agents, `all` for humans). */
  wakeOn: WakeOnSchema.optional(),
};
const Roles = z.array(shortText(64)).max(16);

export const ProfileSchema = z.strictObject({
  kind: ParticipantKindSchema.default('agent'),
  ...profileFields,
  roles: Roles.default([]),
});
export type Profile = z.output<typeof ProfileSchema>;
export type ProfileInput = z.input<typeof ProfileSchema>;

/** A change to a profile: only the fields given change (no defaults fill the rest). */
export const ProfilePatchSchema = z.strictObject({
  kind: ParticipantKindSchema.optional(),
  ...profileFields,
  roles: Roles.optional(),
});
export type ProfilePatch = z.output<typeof ProfilePatchSchema>;

/**
 * What a participant may change of its own profile: everything but its kind
 * and roles, which whoever registers it sets (they decide what it may do:
 * humans post in paused threads, excluded kinds get no chat).
 */
export const SelfProfilePatchSchema = ProfilePatchSchema.omit({ kind: true, roles: true });
/** The profile fields only a participant's registration sets. */
export const REGISTERED_PROFILE_FIELDS = ['kind', 'roles'] as const;
export type SelfProfilePatch = z.input<typeof SelfProfilePatchSchema>;

export interface Participant {
  /** Stable id: derived from the participant's Ed25519 public key. */
  id: string;
  handle: string;
  profile: Profile;
  /** Base64 of the raw 32-byte Ed25519 public key. */
  publicKey: string;
  createdAt: string;
  /** The name of the linked hub that hosts it; absent: this hub hosts it. */
  hub?: string;
}

export const JoinInputSchema = z.strictObject({
  handle: HandleSchema,
  session: z.string().optional(),
  profile: ProfilePatchSchema.optional(),
});
export type JoinInput = z.input<typeof JoinInputSchema>;
