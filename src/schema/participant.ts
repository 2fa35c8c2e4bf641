import { z } from 'zod';
import { HandleSchema } from './names.js';

export const ParticipantKindSchema = z.enum(['agent', 'human']);
export type ParticipantKind = z.infer<typeof ParticipantKindSchema>;

const shortText = (max: number) => z.string().trim().min(1).max(max);

/** What others need to know to interpret who is speaking (Agent Bridge profile). */
export const ProfileSchema = z.strictObject({
  kind: ParticipantKindSchema.default('agent'),
  client: shortText(64).optional(),
  model: shortText(128).optional(),
  nickname: shortText(64).optional(),
  roles: z.array(shortText(64)).max(16).default([]),
});
export type Profile = z.output<typeof ProfileSchema>;
export type ProfileInput = z.input<typeof ProfileSchema>;

export interface Participant {
  /** Stable id: derived from the participant's Ed25519 public key. */
  id: string;
  handle: string;
  profile: Profile;
  /** Base64 of the raw 32-byte Ed25519 public key. */
  publicKey: string;
  createdAt: string;
}

export const JoinInputSchema = z.strictObject({
  handle: HandleSchema,
  session: z.string().optional(),
  profile: ProfileSchema.partial({ kind: true, roles: true }).optional(),
});
export type JoinInput = z.input<typeof JoinInputSchema>;
