import { z } from 'zod';
import { PeerAddrSchema } from '../schema/peer-book.js';
import { AccessSchema } from '../schema/access.js';
import { MeetingSayInputSchema, SubscriptionInputSchema } from '../schema/inputs.js';
import { HandleSchema, SeqSchema, SessionNameSchema } from '../schema/names.js';
import { RosterSchema } from '../schema/roster.js';
import { oneLineText } from '../schema/text.js';
import { HUB_PROOF_NONCE } from '../trust/hub-proof.js';

/**
 * Bodies of the HTTP routes that are not a library call's input as it stands:
 * the password sign-in, token rotation, and the inputs whose key the path
 * supplies. The routes validate with these and the OpenAPI document shows them.
 */
export const LoginBodySchema = z.strictObject({
  password: z.string().check(oneLineText),
  handle: HandleSchema.optional(),
  session: SessionNameSchema.optional(),
  /** Registers the handle as a new human when no participant has it; without it such a sign-in is refused (NOT_FOUND), so a typo creates no one. */
  create: z.boolean().optional(),
});

export const MarkReadBodySchema = z.strictObject({ up_to: SeqSchema });

export const SwitchSessionBodySchema = z.strictObject({ session: SessionNameSchema });

export const RotateTokenBodySchema = z.strictObject({ session: SessionNameSchema.optional() });

/** A token for one coordinated adapter run (of the coordinator kind: revoked when the run ends, and at every hub start). */
export const RunTokenBodySchema = z.strictObject({ session: SessionNameSchema.optional() });

/** One bearer token to revoke (the others of its participant keep working). */
export const RevokeTokenBodySchema = z.strictObject({ token: z.string().min(1).max(256).check(oneLineText) });

export const MeetingSayBodySchema = MeetingSayInputSchema.omit({ meeting: true });

export const SubscriptionBodySchema = SubscriptionInputSchema.omit({ thread: true });

/** PUT /participants/:handle/access (local mode). */
export const SetAccessBodySchema = z.strictObject({ access: AccessSchema });

/**
 * POST /hub/roster: the roster document, and `confirm: true` to put in force a
 * version that drops members who hold live sessions (refused otherwise).
 */
export const RosterPushBodySchema = RosterSchema.extend({ confirm: z.boolean().optional() });

/** POST /hub/peers: a hub to keep and dial, by a multiaddr ending in its peer id (`parley peer self` prints it there). */
export const PeerAddBodySchema = z.strictObject({ addr: PeerAddrSchema });

/** POST /hub/peers/{peer}/block: how long the link stays cut, in seconds (10 minutes when left out). */
export const PeerBlockBodySchema = z.strictObject({
  seconds: z.number().int('must be a whole number of seconds').min(1, 'must be at least 1').max(86_400, 'must be at most 86400 (a day)').default(600),
});

/** POST /hub-proof: the client's fresh nonce, which the hub signs to prove it is the home's hub (see trust/hub-proof.ts). */
export const HubProofBodySchema = z.strictObject({
  nonce: z.string().regex(HUB_PROOF_NONCE, 'a nonce is 32 random bytes in base64url without padding (43 characters)'),
});
