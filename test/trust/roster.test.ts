import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatPublicKey } from '../../src/trust/node-id.js';
import { readRosterFile, writeRosterFile } from '../../src/trust/roster-file.js';
import { acceptRoster, memberOf, parseRoster, rosterSigningBytes, signRoster, type Roster } from '../../src/trust/roster.js';
import { refusal } from '../helpers/refusal.js';
import { testKey } from './arbitraries.js';

const admin = testKey(1);
const member = testKey(2);
const operator = testKey(3);
const outsider = testKey(4);

function draft(overrides: Partial<Roster> = {}): Roster {
  return {
    org_id: 'my-org',
    version: 1,
    timestamp: '2026-11-24T12:00:00Z',
    members: [
      { pubkey: formatPublicKey(admin.raw), role: 'admin' },
      { pubkey: formatPublicKey(member.raw), role: 'member' },
      { pubkey: formatPublicKey(operator.raw), role: 'operator', archive: true },
    ],
    signatures: [],
    ...overrides,
  };
}

const v1 = signRoster(draft(), admin.privateKey);

describe('roster acceptance', () => {
  it('roster - a first roster signed by one of its own admins is accepted (trust on first use)', () => {
    expect(acceptRoster(undefined, v1)).toEqual(v1);
  });

  it('roster - an update signed by an admin of the roster in force is accepted, and its role changes take effect', () => {
    const next = signRoster(draft({ version: 2, members: [...draft().members.slice(0, 1), { pubkey: formatPublicKey(member.raw), role: 'operator' }] }), admin.privateKey);
    expect(memberOf(v1, member.raw)?.access).toBe('member');
    const accepted = acceptRoster(v1, next);
    expect(memberOf(accepted, member.raw)).toEqual({ access: 'operator', archive: false });
    expect(memberOf(accepted, operator.raw)).toBeUndefined();
  });

  it('roster - an update signed by a non-admin is refused, saying who signed, their role and who must sign', () => {
    const next = signRoster(draft({ version: 2 }), member.privateKey);
    const error = refusal(() => acceptRoster(v1, next));
    expect(error.code).toBe('ROSTER_INVALID');
    expect(error.message).toContain(formatPublicKey(member.raw));
    expect(error.message).toContain('member in version 1');
    expect(error.message).toContain('only an admin of version 1');
    expect(error.details).toMatchObject({ role: 'member', version: 1 });
  });

  it('roster - a signature by a non-admin beside an admin’s is still refused', () => {
    const next = signRoster(signRoster(draft({ version: 2 }), admin.privateKey), operator.privateKey);
    expect(refusal(() => acceptRoster(v1, next)).code).toBe('ROSTER_INVALID');
  });

  it('roster - a first roster signed by a key outside it, or by one of its non-admins, is refused', () => {
    expect(refusal(() => acceptRoster(undefined, signRoster(draft(), outsider.privateKey))).message).toContain('not a member of version 1');
    expect(refusal(() => acceptRoster(undefined, signRoster(draft(), member.privateKey))).code).toBe('ROSTER_INVALID');
  });

  it('roster - an admin who is admin only in the new version cannot promote themself', () => {
    const next = signRoster(draft({ version: 2, members: [...draft().members.slice(0, 1), { pubkey: formatPublicKey(member.raw), role: 'admin' }] }), member.privateKey);
    expect(refusal(() => acceptRoster(v1, next)).code).toBe('ROSTER_INVALID');
  });

  it('roster - an unsigned roster is refused', () => {
    const error = refusal(() => acceptRoster(v1, draft({ version: 2 })));
    expect(error.code).toBe('ROSTER_INVALID');
    expect(error.message).toContain('unsigned');
  });

  it('roster - a signature that does not verify is refused as BAD_SIGNATURE naming the signer', () => {
    const signed = signRoster(draft({ version: 2 }), admin.privateKey);
    const tampered = { ...signed, members: signed.members.map((m) => (m.role === 'member' ? { ...m, role: 'admin' as const } : m)) };
    const error = refusal(() => acceptRoster(v1, tampered));
    expect(error.code).toBe('BAD_SIGNATURE');
    expect(error.details).toEqual({ signer: formatPublicKey(admin.raw) });
    const flipped = { ...signed, signatures: [{ ...signed.signatures[0]!, sig: `${signed.signatures[0]!.sig.slice(0, -2)}AA` }] };
    expect(refusal(() => acceptRoster(v1, flipped)).code).toBe('BAD_SIGNATURE');
  });

  it('roster - the same or a lower version is refused as a rollback', () => {
    const same = signRoster(draft({ timestamp: '2026-11-25T00:00:00Z' }), admin.privateKey);
    expect(refusal(() => acceptRoster(v1, same)).code).toBe('ROSTER_ROLLBACK');
    const v3 = acceptRoster(v1, signRoster(draft({ version: 3 }), admin.privateKey));
    const error = refusal(() => acceptRoster(v3, signRoster(draft({ version: 2 }), admin.privateKey)));
    expect(error.code).toBe('ROSTER_ROLLBACK');
    expect(error.message).toContain('version 2 is not newer than version 3');
  });

  it('roster - a roster of another org is refused', () => {
    const error = refusal(() => acceptRoster(v1, signRoster(draft({ org_id: 'other-org', version: 2 }), admin.privateKey)));
    expect(error.code).toBe('ROSTER_INVALID');
    expect(error.field).toBe('org_id');
  });

  it('roster - a member listed twice is refused naming the entry', () => {
    const twice = draft({ members: [...draft().members, { pubkey: formatPublicKey(member.raw), role: 'admin' }] });
    const error = refusal(() => parseRoster(twice));
    expect(error.code).toBe('ROSTER_INVALID');
    expect(error.field).toBe('members.3.pubkey');
    expect(refusal(() => signRoster(twice, admin.privateKey)).code).toBe('ROSTER_INVALID');
  });

  it('roster - a roster that leaves no admin is refused', () => {
    const next = signRoster(draft({ version: 2, members: [{ pubkey: formatPublicKey(member.raw), role: 'member' }] }), admin.privateKey);
    expect(refusal(() => acceptRoster(v1, next)).message).toContain('no admin');
  });

  it('roster - malformed documents are refused naming the field', () => {
    expect(refusal(() => parseRoster({ ...draft(), timestamp: '2026-11-24 12:00' })).field).toBe('timestamp');
    expect(refusal(() => parseRoster({ ...draft(), timestamp: '2026-02-30T00:00:00Z' })).field).toBe('timestamp');
    expect(refusal(() => parseRoster({ ...draft(), version: 0 })).field).toBe('version');
    expect(refusal(() => parseRoster({ ...draft(), members: [{ pubkey: 'ed25519:abc', role: 'admin' }] })).field).toBe('members.0.pubkey');
    expect(refusal(() => parseRoster({ ...draft(), members: [{ pubkey: formatPublicKey(admin.raw), role: 'owner' }] })).field).toBe('members.0.role');
    expect(refusal(() => parseRoster({ ...draft(), extra: 1 })).field).toBe('extra');
    // The last base64url character of a 32-byte key has 2 spare bits: only the canonical spelling is a key.
    const key = formatPublicKey(admin.raw);
    const respelled = `${key.slice(0, -1)}${String.fromCharCode(key.charCodeAt(key.length - 1) + 1)}`;
    expect(refusal(() => parseRoster({ ...draft(), members: [{ pubkey: respelled, role: 'admin' }] })).field).toBe('members.0.pubkey');
  });

  it('roster - signing replaces that key’s earlier signature; the signed bytes ignore member order and signatures', () => {
    const twice = signRoster(signRoster(draft(), admin.privateKey), admin.privateKey);
    expect(twice.signatures).toHaveLength(1);
    const reordered = draft({ members: [...draft().members].reverse() });
    expect(rosterSigningBytes(reordered)).toEqual(rosterSigningBytes(draft()));
    expect(rosterSigningBytes(v1)).toEqual(rosterSigningBytes(draft()));
    expect(acceptRoster(undefined, { ...v1, members: reordered.members })).toBeTruthy();
  });

  it('roster - a hub member is signed as one: marking or unmarking it breaks the signature, and rosters without hubs sign as before', () => {
    const hubKey = testKey(5);
    const withHub = (kind?: 'hub'): Roster => draft({ members: [...draft().members, { pubkey: formatPublicKey(hubKey.raw), role: 'member', ...(kind ? { kind } : {}) }] });
    const signed = signRoster(withHub('hub'), admin.privateKey);
    expect(acceptRoster(undefined, signed).members.find((m) => m.pubkey === formatPublicKey(hubKey.raw))).toEqual({ pubkey: formatPublicKey(hubKey.raw), role: 'member', kind: 'hub' });
    expect(rosterSigningBytes(withHub('hub'))).not.toEqual(rosterSigningBytes(withHub()));
    // The same signature over the member as a participant does not verify: the mark is part of what admins sign.
    expect(refusal(() => acceptRoster(undefined, { ...signed, members: withHub().members }), 'BAD_SIGNATURE').message).toContain(formatPublicKey(admin.raw));
    // No hub member: the signed bytes do not mention kinds at all (rosters signed before hubs stay valid).
    expect(Buffer.from(rosterSigningBytes(draft())).includes(Buffer.from('hub'))).toBe(false);
    expect(refusal(() => parseRoster({ ...withHub(), members: [{ pubkey: formatPublicKey(hubKey.raw), role: 'member', kind: 'agent' }] }), 'ROSTER_INVALID').field).toBe('members.0.kind');
  });
});

describe('roster file', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('roster file - written atomically and read back the same; nothing else left in the folder', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-roster-'));
    const file = path.join(dir, 'roster.json');
    writeRosterFile(file, v1);
    writeRosterFile(file, v1);
    expect(readRosterFile(file)).toEqual(v1);
    expect(fs.readdirSync(dir)).toEqual(['roster.json']);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(v1);
  });

  it('roster file - a missing, non-JSON or malformed file is a ROSTER_INVALID naming the file', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-roster-'));
    const file = path.join(dir, 'roster.json');
    const missing = refusal(() => readRosterFile(file));
    expect(missing.code).toBe('ROSTER_INVALID');
    expect(missing.message).toContain(file);
    fs.writeFileSync(file, '{"org_id":');
    expect(refusal(() => readRosterFile(file)).message).toContain('not valid JSON');
    fs.writeFileSync(file, JSON.stringify({ ...v1, version: -1 }));
    const bad = refusal(() => readRosterFile(file));
    expect(bad.field).toBe('version');
    expect(bad.message).toContain(file);
    expect(refusal(() => writeRosterFile(path.join(dir!, 'no-such-dir', 'roster.json'), v1)).message).toContain('folder does not exist');
  });
});
