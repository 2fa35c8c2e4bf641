import type { KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Roster } from '../../src/schema/roster.js';
import { eventFieldsToJson, signEvent, type SignedEventFields } from '../../src/trust/envelope.js';
import { pairOf, type KeyPair } from '../../src/trust/key-ring.js';
import { formatPublicKey, privateKeyFromSeed, rawPublicKeyOf } from '../../src/trust/node-id.js';
import { EXPORT_ROSTER_DOMAIN, signRoster } from '../../src/trust/roster.js';
import { ExportVerifier } from '../../src/trust/signed-export.js';
import { sealedBy, verifyLines, type Line } from './export-lines.js';

/** The verifier on exports built by hand: an org's roster chain, roles, anchors, sender_seq, and authors outside the roster. */
describe('signed export with a roster chain (verifier)', () => {
  const admin = privateKeyFromSeed(Buffer.alloc(32, 1));
  const writer = privateKeyFromSeed(Buffer.alloc(32, 2));
  const outsider = privateKeyFromSeed(Buffer.alloc(32, 5));
  const adminKey = formatPublicKey(rawPublicKeyOf(admin));
  const writerKey = formatPublicKey(rawPublicKeyOf(writer));
  const outsiderKey = formatPublicKey(rawPublicKeyOf(outsider));
  /** The exporting hub's key: it seals the file, and is not in the org's roster. */
  const hub = pairOf(privateKeyFromSeed(Buffer.alloc(32, 4)));
  const rosterV1 = signRoster({ org_id: 'acme', version: 1, timestamp: '2026-11-24T12:00:00Z', members: [{ pubkey: adminKey, role: 'admin' }, { pubkey: writerKey, role: 'member' }], signatures: [] }, admin);
  const rosterV2 = signRoster({ ...rosterV1, version: 2, timestamp: '2026-11-24T13:00:00Z', members: [{ pubkey: adminKey, role: 'admin' }, { pubkey: writerKey, role: 'operator' }], signatures: [] }, admin);
  const authors = [
    { key: writerKey, handle: 'writer' },
    { key: outsiderKey, handle: 'outsider' },
  ];
  /** `body` between a header and a trailer sealed by `by` (the hub's key unless said otherwise). */
  const sealed = (body: string[], by: KeyPair = hub, mode: 'local' | 'roster' = 'roster'): string[] =>
    sealedBy(by, { mode, thread: { id: 'T1', name: 'general', kind: 'channel' }, authors, exported_at: '2026-11-24T14:00:00Z' }, body);
  let senderSeq = 0;
  const event = (kind: string, rosterVersion: number | null, content: unknown = 'hi', author: KeyObject = writer): string => {
    senderSeq += 1;
    const fields: SignedEventFields = {
      id: `01KAPM5S00000000000000${String(senderSeq).padStart(4, '0')}`,
      from: rawPublicKeyOf(author),
      thread: 'T1',
      to: null,
      kind,
      content,
      meta: null,
      ts: Date.parse('2026-11-24T12:30:00Z') + senderSeq,
      ttl_secs: 300,
      sender_seq: senderSeq,
      sender_epoch: Buffer.alloc(16, 7),
    };
    const handle = author === writer ? 'writer' : 'outsider';
    return JSON.stringify({ type: 'event', seq: senderSeq, author: handle, roster_version: rosterVersion, event: eventFieldsToJson(fields), sig: signEvent(author, fields).toString('base64url') });
  };
  const rosterLine = (roster: Roster): string => JSON.stringify({ type: 'roster', scope: 'org', roster });
  const localLine = (roster: Roster): string => JSON.stringify({ type: 'roster', scope: 'local', roster });

  it('verify - a request needs operator in the roster in force when it was written: refused under v1, accepted under v2', () => {
    senderSeq = 0;
    const body = [rosterLine(rosterV1), rosterLine(rosterV2), event('message', 1), event('request', 2, { request_id: 'r1', intent: 'x', params: null, hop: 0 })];
    expect(verifyLines(sealed(body))).toBeUndefined();
    const early = sealed([...body, event('request', 1, { request_id: 'r2', intent: 'x', params: null, hop: 0 })]);
    expect(verifyLines(early)).toMatchObject({ line: 6 });
    expect(verifyLines(early)?.reason).toMatch(/a request needs operator, and the author was member in roster version 1/);
  });

  it('verify - an event signed by a key outside the roster it was written under fails at its line, though the hub sealed the file and named its author', () => {
    senderSeq = 0;
    const lines = sealed([rosterLine(rosterV1), event('message', 1), event('message', 1, 'from outside', outsider)]);
    expect(verifyLines(lines)).toMatchObject({ line: 4 });
    expect(verifyLines(lines)?.reason).toMatch(/^event \S+ \(seq 2\) by @outsider ed25519:\S+: the author is not in roster acme version 1$/);
  });

  it('verify - the roster chain must hold: a rollback, a version signed by a non-admin, or a missing version fail at their line', () => {
    senderSeq = 0;
    expect(verifyLines(sealed([rosterLine(rosterV2), rosterLine(rosterV1)]))?.reason).toMatch(/not newer than version 2/);
    const byWriter = signRoster({ ...rosterV2, version: 3, signatures: [] }, writer);
    expect(verifyLines(sealed([rosterLine(rosterV2), rosterLine(byWriter)]))).toMatchObject({ line: 3 });
    expect(verifyLines(sealed([rosterLine(rosterV2), rosterLine(byWriter)]))?.reason).toMatch(/only an admin of version 2 may sign/);
    expect(verifyLines(sealed([rosterLine(rosterV2), event('message', 1)]))?.reason).toMatch(/roster version 1, which the export does not include/);
  });

  it('verify - with a trusted roster given, the export must carry exactly that version', () => {
    senderSeq = 0;
    const lines = sealed([rosterLine(rosterV1), rosterLine(rosterV2), event('message', 2)]);
    expect(verifyLines(lines, { anchor: rosterV2 })).toBeUndefined();
    const other = signRoster({ ...rosterV2, timestamp: '2026-11-24T13:30:00Z', signatures: [] }, admin);
    expect(verifyLines(lines, { anchor: other })?.reason).toMatch(/differs from the one you trust/);
    const otherOrg = signRoster({ ...rosterV1, org_id: 'other', signatures: [] }, admin);
    expect(verifyLines(sealed([rosterLine(rosterV1), event('message', 1)]), { anchor: otherOrg })?.reason).toMatch(/do not include the roster you trust/);
    expect(verifyLines(sealed([rosterLine(rosterV1), event('message', 1)]), { anchor: rosterV2 })?.reason).toMatch(/older than the roster you trust/);
  });

  it('verify - against a trusted roster, a forged older version or a local roster under a made-up hub key vouches for nothing', () => {
    senderSeq = 0;
    const forger = pairOf(privateKeyFromSeed(Buffer.alloc(32, 3)));
    const forgerKey = formatPublicKey(forger.raw);
    // A v1 that lists the real admin (so the real v2 chains onto it) and the forger.
    const fakeV1 = signRoster({ org_id: 'acme', version: 1, timestamp: '2026-11-24T11:00:00Z', members: [{ pubkey: adminKey, role: 'admin' }, { pubkey: forgerKey, role: 'admin' }, { pubkey: writerKey, role: 'operator' }], signatures: [] }, forger.privateKey);
    const lines = sealed([rosterLine(fakeV1), rosterLine(rosterV2), event('request', 1, { request_id: 'r1', intent: 'x', params: null, hop: 0 })]);
    expect(verifyLines(lines, { anchor: rosterV2 })?.reason).toMatch(/older than the roster you trust/);
    // A local roster signed by a hub key the forger chose, sealing the file.
    const localRoster = signRoster({ org_id: 'local:x', version: 1, timestamp: '2026-11-24T11:00:00Z', members: [{ pubkey: forgerKey, role: 'admin' }, { pubkey: writerKey, role: 'member' }], signatures: [] }, forger.privateKey, EXPORT_ROSTER_DOMAIN);
    const local = sealed([rosterLine(rosterV2), localLine(localRoster), event('message', null)], forger);
    expect(verifyLines(local, { anchor: rosterV2 })).toMatchObject({ line: 3 });
    expect(verifyLines(local, { anchor: rosterV2 })?.reason).toMatch(/not an admin of the roster you trust/);
    // Without a trusted roster the same file is only self-consistent, as the report says.
    expect(verifyLines(local)).toBeUndefined();
  });

  it('verify - a local roster is signed under the export roster\'s domain and an org roster under the roster\'s: swapped, each is refused', () => {
    senderSeq = 0;
    const adminPair = pairOf(admin);
    const asHubRoster = signRoster({ ...rosterV1, org_id: 'local:x', signatures: [] }, admin);
    expect(verifyLines(sealed([localLine(asHubRoster), event('message', null)], adminPair, 'local'))?.reason).toMatch(/roster refused: .*signed as a hub's roster \(parley\/roster\/v1\)/);
    const asExportRoster = signRoster({ ...asHubRoster, signatures: [] }, admin, EXPORT_ROSTER_DOMAIN);
    expect(verifyLines(sealed([localLine(asExportRoster), event('message', null)], adminPair, 'local'))).toBeUndefined();
    const exportRosterAsOrg = signRoster({ ...rosterV1, signatures: [] }, admin, EXPORT_ROSTER_DOMAIN);
    expect(verifyLines(sealed([rosterLine(exportRosterAsOrg), event('message', 1)]))?.reason).toMatch(/roster refused: .*signed as the roster of a signed export/);
  });

  it('verify - a gap in an author\'s sender_seq is reported, and fails with noGaps', () => {
    senderSeq = 0;
    const first = event('message', 1);
    event('message', 1);
    const third = event('message', 1);
    const lines = sealed([rosterLine(rosterV1), first, third]);
    const verifier = new ExportVerifier();
    for (const line of lines) verifier.line(line);
    expect(verifier.finish().gaps).toBe(1);
    const strict = new ExportVerifier({ noGaps: true });
    expect(() => lines.forEach((line) => strict.line(line))).toThrow(/line 4: .*1 of the author's events are missing/);
  });

  it('verify - sender_seq must only grow per author and epoch, and the hub\'s seq with each event', () => {
    senderSeq = 0;
    const first = event('message', 1);
    const second = event('message', 1);
    const withSeq = (line: string, seq: number): string => JSON.stringify({ ...(JSON.parse(line) as Line), seq });
    expect(verifyLines(sealed([rosterLine(rosterV1), withSeq(second, 1), withSeq(first, 2)]))?.reason).toMatch(/sender_seq 1 after 2/);
    expect(verifyLines(sealed([rosterLine(rosterV1), second, first]))?.reason).toMatch(/seq 1 after seq 2; the hub writes events in order/);
  });
});
