/**
 * A channel access policy: who may read, write and administer one channel,
 * and how long it keeps history. Not the thread's participation policy
 * (steer_policy). DMs have none. What the signature covers is the CBOR form
 * built in src/trust/channel-policy.ts.
 */

import { z } from 'zod';
import { DEFAULT_RETENTION_HOURS, DEFAULT_RETENTION_MESSAGES } from './limits.js';
import { AccessSchema } from './access.js';
import { PublicKeyTextSchema } from './roster.js';

export const MAX_POLICY_SELECTORS = 256;

/** One key, or everyone whose permission role is at least `access`. */
export const SelectorSchema = z.union([z.strictObject({ key: PublicKeyTextSchema }), z.strictObject({ access: AccessSchema })], {
  message: 'must be {"key": "ed25519:…"} or {"access": "observer|member|operator|admin"}',
});
export type Selector = z.output<typeof SelectorSchema>;

const selectors = z.array(SelectorSchema).max(MAX_POLICY_SELECTORS, `must list at most ${MAX_POLICY_SELECTORS}`);
const positive = z.number().int('must be a whole number').min(1, 'must be at least 1').max(Number.MAX_SAFE_INTEGER);

export const ChannelPolicySchema = z.strictObject({
  /** The channel's thread id. */
  thread: z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters'),
  /** Increases with every change; the newest signed version is in force. */
  version: positive,
  readers: selectors,
  writers: selectors,
  /** Channel admins; each key must also be a roster admin (checked where the roster is known). */
  admins: selectors,
  retention_hours: positive.default(DEFAULT_RETENTION_HOURS),
  retention_messages: positive.default(DEFAULT_RETENTION_MESSAGES),
  allow_history_fetch: z.boolean().default(true),
});
export type ChannelPolicy = z.output<typeof ChannelPolicySchema>;
/** As written: the retention and history fields may be left to their defaults. */
export type ChannelPolicyInput = z.input<typeof ChannelPolicySchema>;
