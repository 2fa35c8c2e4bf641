import type { KeyObject } from 'node:crypto';
import { ParleyError } from '../errors/parley-error.js';
import { accessAtLeast, type Access } from '../schema/access.js';
import { ChannelPolicySchema, type ChannelPolicy, type ChannelPolicyInput, type Selector } from '../schema/channel-policy.js';
import { canonicalEncode } from './cbor.js';
import { cachedPublicKey, ED25519_SIGNATURE_BYTES, formatPublicKey, parsePublicKey } from './node-id.js';
import { ed25519Sign, ed25519Verify } from './ed25519.mjs';

export type { ChannelPolicy, ChannelPolicyInput, Selector } from '../schema/channel-policy.js';

/**
 * Channel access policies, signed by a roster admin. Frozen v1 signed form:
 * the CBOR array
 *   ["parley/policy/v1", thread, version, readers, writers, admins,
 *    retention_hours, retention_messages, allow_history_fetch]
 * with each selector as ["key", bytes(32)] or ["access", role], lists in the
 * order written (the document is what is stored and signed again). Ed25519
 * over those bytes, no pre-hash; the signer and signature travel beside it.
 */
export const POLICY_DOMAIN = 'parley/policy/v1';

const LISTS = ['readers', 'writers', 'admins'] as const;

/** A policy with its defaults filled in; INVALID_INPUT names the field. Keys must be in their one spelling, and no list names anyone twice. */
export function parseChannelPolicy(input: unknown): ChannelPolicy {
  const parsed = ChannelPolicySchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = (issue?.path ?? []).map(String);
    if (issue?.code === 'unrecognized_keys' && issue.keys[0] !== undefined) path.push(issue.keys[0]);
    const field = path.join('.') || 'policy';
    const reason = issue?.code === 'unrecognized_keys' ? 'unknown field' : (issue?.message ?? 'invalid');
    throw new ParleyError('INVALID_INPUT', `Invalid channel policy field ${field}: ${reason}.`, { field });
  }
  const policy = parsed.data;
  for (const list of LISTS) {
    const seen = new Set<string>();
    policy[list].forEach((selector, i) => {
      const field = `${list}.${i}`;
      if ('key' in selector) parsePublicKey(selector.key, `${field}.key`);
      const id = 'key' in selector ? selector.key : `access:${selector.access}`;
      if (seen.has(id)) throw new ParleyError('INVALID_INPUT', `Invalid channel policy field ${field}: listed twice in ${list}; list each once.`, { field });
      seen.add(id);
    });
  }
  return policy;
}

function selectorTuple(selector: Selector): [string, Uint8Array | string] {
  return 'key' in selector ? ['key', parsePublicKey(selector.key, 'key')] : ['access', selector.access];
}

/** The bytes a policy's signature is over (defaults filled in first, so an omitted default and a written one sign alike). */
export function policySigningBytes(policy: ChannelPolicyInput): Uint8Array {
  const p = parseChannelPolicy(policy);
  return canonicalEncode(
    [
      POLICY_DOMAIN,
      p.thread,
      p.version,
      p.readers.map(selectorTuple),
      p.writers.map(selectorTuple),
      p.admins.map(selectorTuple),
      p.retention_hours,
      p.retention_messages,
      p.allow_history_fetch,
    ],
    'policy',
  );
}

/** The 64-byte signature of the policy by `privateKey`. */
export function signPolicy(policy: ChannelPolicyInput, privateKey: KeyObject): Buffer {
  return ed25519Sign(policySigningBytes(policy), privateKey);
}

/** Whether `signature` is `signer`'s (raw key) signature of this policy. Whether the signer may set policies is the caller's roster check. */
export function verifyPolicy(policy: ChannelPolicyInput, signer: Uint8Array, signature: Uint8Array): boolean {
  const bytes = policySigningBytes(policy);
  if (!(signature instanceof Uint8Array) || signature.length !== ED25519_SIGNATURE_BYTES) return false;
  return ed25519Verify(bytes, cachedPublicKey(signer, 'signer'), signature);
}

/** Who is asking: their raw key and their permission role (undefined when they have none, e.g. not in the roster). */
export interface PolicySubject {
  raw: Uint8Array;
  access: Access | undefined;
}

/** A key selector matches that key; an access selector matches that role and every higher one (an admin is a reader of a members' channel). */
export function selectorMatches(selector: Selector, who: PolicySubject, whoKey: string = formatPublicKey(who.raw)): boolean {
  if ('key' in selector) return selector.key === whoKey;
  return who.access !== undefined && accessAtLeast(who.access, selector.access);
}

/** Whether any selector of the list matches; an empty list allows no one (default deny). */
export function policyAllows(list: readonly Selector[], who: PolicySubject): boolean {
  const whoKey = formatPublicKey(who.raw);
  return list.some((selector) => selectorMatches(selector, who, whoKey));
}
