/**
 * A hub as `parley peer self --json` describes it: what another hub's roster
 * takes with `parley roster add --from FILE`.
 */

import { z } from 'zod';
import { HandleSchema } from './names.js';
import { ParticipantKindSchema } from './participant.js';
import { PublicKeyTextSchema } from './roster.js';

export const PeerSelfSchema = z.object({
  key: PublicKeyTextSchema,
  id: z.string().regex(/^h_[a-z2-7]{26}$/, 'must be a hub id, "h_" and 26 base32 characters'),
  name: z.string().max(64),
  addrs: z.array(z.string().max(1024)).max(64),
  participants: z
    .array(z.strictObject({ handle: HandleSchema, key: PublicKeyTextSchema, kind: ParticipantKindSchema }))
    .max(10_000),
});

export type PeerSelfFile = z.output<typeof PeerSelfSchema>;
