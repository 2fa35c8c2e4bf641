import { describe, expect, it } from 'vitest';
import { DEFAULT_RETENTION_HOURS, DEFAULT_RETENTION_MESSAGES } from '../../src/config/defaults.js';
import {
  parseChannelPolicy,
  policyAllows,
  policySigningBytes,
  selectorMatches,
  signPolicy,
  verifyPolicy,
  type ChannelPolicyInput,
} from '../../src/trust/channel-policy.js';
import { formatPublicKey } from '../../src/trust/node-id.js';
import { refusal } from '../helpers/refusal.js';
import { testKey } from './arbitraries.js';

const admin = testKey(1);
const reviewer = testKey(2);
const other = testKey(3);

const policy: ChannelPolicyInput = {
  thread: '01KAPM5S0000000000000000T1',
  version: 1,
  readers: [{ access: 'member' }, { key: formatPublicKey(reviewer.raw) }],
  writers: [{ access: 'operator' }],
  admins: [{ key: formatPublicKey(admin.raw) }],
};

describe('channel access policy', () => {
  it('policy - defaults fill retention and history fetch, and a written default signs the same as an omitted one', () => {
    const parsed = parseChannelPolicy(policy);
    expect(parsed).toMatchObject({ retention_hours: DEFAULT_RETENTION_HOURS, retention_messages: DEFAULT_RETENTION_MESSAGES, allow_history_fetch: true });
    expect(DEFAULT_RETENTION_HOURS).toBe(72);
    expect(DEFAULT_RETENTION_MESSAGES).toBe(10_000);
    expect(policySigningBytes(parsed)).toEqual(policySigningBytes(policy));
  });

  it('policy - a policy signed by a key verifies with that key only', () => {
    const sig = signPolicy(policy, admin.privateKey);
    expect(sig).toHaveLength(64);
    expect(verifyPolicy(policy, admin.raw, sig)).toBe(true);
    expect(verifyPolicy(policy, other.raw, sig)).toBe(false);
    expect(verifyPolicy(policy, admin.raw, sig.subarray(1))).toBe(false);
  });

  it('policy - changing any signed field fails verification', () => {
    const sig = signPolicy(policy, admin.privateKey);
    const changes: Partial<ChannelPolicyInput>[] = [
      { thread: '01KAPM5S0000000000000000T2' },
      { version: 2 },
      { readers: [{ access: 'observer' }, { key: formatPublicKey(reviewer.raw) }] },
      { readers: [{ key: formatPublicKey(reviewer.raw) }, { access: 'member' }] },
      { writers: [{ access: 'member' }] },
      { admins: [{ key: formatPublicKey(other.raw) }] },
      { retention_hours: 24 },
      { retention_messages: 500 },
      { allow_history_fetch: false },
    ];
    for (const change of changes) expect(verifyPolicy({ ...policy, ...change }, admin.raw, sig)).toBe(false);
  });

  it('policy - access selectors match that role and higher; key selectors match the key only', () => {
    expect(selectorMatches({ access: 'member' }, { raw: other.raw, access: 'admin' })).toBe(true);
    expect(selectorMatches({ access: 'member' }, { raw: other.raw, access: 'member' })).toBe(true);
    expect(selectorMatches({ access: 'member' }, { raw: other.raw, access: 'observer' })).toBe(false);
    expect(selectorMatches({ access: 'observer' }, { raw: other.raw, access: undefined })).toBe(false);
    expect(selectorMatches({ key: formatPublicKey(reviewer.raw) }, { raw: reviewer.raw, access: undefined })).toBe(true);
    expect(selectorMatches({ key: formatPublicKey(reviewer.raw) }, { raw: other.raw, access: 'admin' })).toBe(false);
    const parsed = parseChannelPolicy(policy);
    expect(policyAllows(parsed.readers, { raw: reviewer.raw, access: 'observer' })).toBe(true);
    expect(policyAllows(parsed.readers, { raw: other.raw, access: 'observer' })).toBe(false);
    expect(policyAllows(parsed.writers, { raw: reviewer.raw, access: 'member' })).toBe(false);
    expect(policyAllows(parsed.writers, { raw: other.raw, access: 'operator' })).toBe(true);
    expect(policyAllows([], { raw: admin.raw, access: 'admin' })).toBe(false);
  });

  it('policy - malformed policies are refused naming the field', () => {
    expect(refusal(() => parseChannelPolicy({ ...policy, readers: [{ access: 'owner' }] })).field).toBe('readers.0');
    expect(refusal(() => parseChannelPolicy({ ...policy, writers: [{ key: 'ed25519:nope' }] })).field).toBe('writers.0.key');
    expect(refusal(() => parseChannelPolicy({ ...policy, admins: [{ key: formatPublicKey(admin.raw) }, { key: formatPublicKey(admin.raw) }] })).field).toBe('admins.1');
    expect(refusal(() => parseChannelPolicy({ ...policy, retention_hours: 0 })).field).toBe('retention_hours');
    expect(refusal(() => parseChannelPolicy({ ...policy, version: 1.5 })).field).toBe('version');
    expect(refusal(() => parseChannelPolicy({ ...policy, name: 'general' })).field).toBe('name');
    expect(refusal(() => parseChannelPolicy({ thread: 't', version: 1 })).field).toBe('readers');
  });
});
