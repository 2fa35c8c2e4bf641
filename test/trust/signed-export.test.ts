import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/hub/actor.js';
import type { Roster } from '../../src/schema/roster.js';
import { eventFieldsToJson, signEvent, type SignedEventFields } from '../../src/trust/envelope.js';
import { readKeyFile } from '../../src/trust/key-files.js';
import { formatPublicKey, privateKeyFromSeed, rawPublicKeyOf } from '../../src/trust/node-id.js';
import { EXPORT_ROSTER_DOMAIN, signRoster } from '../../src/trust/roster.js';
import { ExportVerifier, VerifyFailure } from '../../src/trust/signed-export.js';
import { openTestHub, tempHome, type TestHub } from '../helpers/hub.js';
import { cliAt, startServe, stopHubs, type RunningHub } from '../helpers/serve.js';

/** Checks an export's lines in process; the failure, or undefined when it verifies. */
function verifyLines(lines: string[], anchor?: Roster): VerifyFailure | undefined {
  const verifier = new ExportVerifier(anchor ? { anchor } : {});
  try {
    for (const line of lines) verifier.line(line);
    verifier.finish();
    return undefined;
  } catch (error) {
    if (error instanceof VerifyFailure) return error;
    throw error;
  }
}

async function exportText(actor: Actor, thread: string): Promise<string> {
  const exported = await actor.export({ thread, format: 'signed' });
  let text = '';
  for await (const chunk of exported.chunks) text += chunk;
  return text;
}

type Line = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON lines, changed field by field

describe('signed export, verified offline (in process)', () => {
  let t: TestHub;
  let lines: string[];
  let human: Actor;

  beforeAll(async () => {
    t = await openTestHub();
    human = await t.hub.join({ handle: 'human', profile: { kind: 'human' } });
    const coder = await t.hub.join({ handle: 'coder-1' });
    await human.post({ thread: 'general', text: 'plan the cache, @coder-1', tags: ['plan'] });
    const reply = await coder.post({ thread: 'general', text: 'on it', reply_to: undefined });
    await human.post({ thread: 'general', text: 'thanks', reply_to: reply.id });
    const asked = await coder.request({ to: 'human', intent: 'review', thread: 'general', params: { file: 'cache.ts', ratio: 0.5 } });
    await human.respond({ request_id: asked.request_id, status: 'Completed', result: { ok: true } });
    await human.control('general', { pause: { on: true } });
    await human.control('general', { pause: { on: false } });
    lines = (await exportText(human, 'general')).trimEnd().split('\n');
  });
  afterAll(async () => {
    await t.close();
  });

  it('export - a real conversation exports with a header, a hub-signed local roster and every event, and verifies', () => {
    const header = JSON.parse(lines[0]!) as Line;
    expect(header).toMatchObject({ type: 'parley-export', v: 1, mode: 'local', thread: { name: 'general', kind: 'channel' } });
    expect(header.hub).toBe(formatPublicKey(t.hub.internals.ctx.keys.hub().raw));
    const roster = JSON.parse(lines[1]!) as Line;
    expect(roster).toMatchObject({ type: 'roster', scope: 'local' });
    expect(roster.roster.signatures.map((s: Line) => s.pubkey)).toEqual([header.hub]);
    const events = lines.slice(2).map((l) => JSON.parse(l) as Line);
    expect(events.map((e) => e.event.kind)).toEqual(['system', 'message', 'message', 'message', 'request', 'response', 'control', 'control']);
    expect(events.every((e) => e.type === 'event' && typeof e.sig === 'string' && e.roster_version === null)).toBe(true);
    expect(verifyLines(lines)).toBeUndefined();
  });

  it('export - changing any one signed value of one event fails verification at exactly that line', () => {
    const changes: Array<[string, (event: Line) => void]> = [
      ['content', (e) => (e.content = `${String(e.content)}!`)],
      ['ts', (e) => (e.ts += 1)],
      ['kind', (e) => (e.kind = 'system')],
      ['meta', (e) => (e.meta = { tags: ['other'] })],
      ['sender_seq', (e) => (e.sender_seq += 100)],
      ['thread id', (e) => (e.id = '01KAPM5S0000000000000000ZZ')],
    ];
    for (const [what, change] of changes) {
      const k = 3; // the second message
      const tampered = [...lines];
      const line = JSON.parse(tampered[k]!) as Line;
      change(line.event);
      tampered[k] = JSON.stringify(line);
      const failure = verifyLines(tampered);
      expect(failure?.line, what).toBe(k + 1);
      expect(failure?.reason, what).toMatch(/signature does not verify/);
    }
  });

  it('export - another author\'s key, a missing roster, an author outside the roster, a replayed event and a wrong thread each fail, naming the line', () => {
    const events = lines.slice(2).map((l) => JSON.parse(l) as Line);
    const humanKey = events[1]!.event.from as string;
    const coderKey = events[2]!.event.from as string;
    expect(humanKey).not.toBe(coderKey);

    const swapped = [...lines];
    const line = JSON.parse(swapped[3]!) as Line;
    line.event.from = line.event.from === humanKey ? coderKey : humanKey;
    swapped[3] = JSON.stringify(line);
    expect(verifyLines(swapped)).toMatchObject({ line: 4 });
    expect(verifyLines(swapped)?.reason).toMatch(/signature does not verify/);

    const noRoster = [lines[0]!, ...lines.slice(2)];
    expect(verifyLines(noRoster)).toMatchObject({ line: 2 });
    expect(verifyLines(noRoster)?.reason).toMatch(/no local roster/);

    // The hub's roster is signed: dropping a member breaks its signature.
    const shrunk = [...lines];
    const roster = JSON.parse(shrunk[1]!) as Line;
    roster.roster.members = roster.roster.members.filter((m: Line) => m.pubkey !== coderKey);
    shrunk[1] = JSON.stringify(roster);
    expect(verifyLines(shrunk)).toMatchObject({ line: 2 });
    expect(verifyLines(shrunk)?.reason).toMatch(/roster refused: .*does not verify/);

    const replayed = [...lines, lines[3]!];
    expect(verifyLines(replayed)).toMatchObject({ line: lines.length + 1 });
    expect(verifyLines(replayed)?.reason).toMatch(/appears twice/);

    const header = JSON.parse(lines[0]!) as Line;
    header.thread.id = 'another-thread';
    expect(verifyLines([JSON.stringify(header), ...lines.slice(1)])?.reason).toMatch(/belongs to thread/);

    expect(verifyLines(['not json'])).toMatchObject({ line: 1 });
    expect(verifyLines([JSON.stringify({ type: 'parley-export', v: 2 })])?.reason).toMatch(/not a Parley signed export header/);
  });

  it('export - the local roster lists the hub and the thread\'s authors only, never the hub\'s other participants', async () => {
    const outsider = await t.hub.join({ handle: 'outsider', session: 'elsewhere' });
    const outsiderKey = formatPublicKey(Buffer.from((await outsider.whoami()).participant.publicKey, 'base64'));
    const again = (await exportText(human, 'general')).trimEnd().split('\n');
    const roster = (JSON.parse(again[1]!) as Line).roster as Roster;
    const authors = new Set(again.slice(2).map((l) => (JSON.parse(l) as Line).event.from as string));
    expect(roster.members.map((m) => m.pubkey).sort()).toEqual([(JSON.parse(again[0]!) as Line).hub as string, ...authors].sort());
    expect(roster.members.some((m) => m.pubkey === outsiderKey)).toBe(false);
  });

  it('export - the export never holds a private key', () => {
    const text = lines.join('\n');
    expect(text).not.toMatch(/PRIVATE KEY/);
    const keysDir = path.join(t.home, 'keys', 'participants');
    for (const file of [path.join(t.home, 'keys', 'hub.key'), ...fs.readdirSync(keysDir).map((f) => path.join(keysDir, f))]) {
      const der = readKeyFile(file).export({ type: 'pkcs8', format: 'der' });
      const seed = der.subarray(der.length - 32);
      for (const encoding of ['base64', 'base64url', 'hex'] as const) expect(text.includes(seed.toString(encoding)), file).toBe(false);
    }
  });
});

describe('signed export of a hub that took a roster mid-thread', () => {
  it('export - the chain travels with the export: events before the roster rest on the hub-signed local roster, later ones on the org roster, and all verify', async () => {
    const t = await openTestHub();
    try {
      const human = await t.hub.join({ handle: 'human', profile: { kind: 'human' } });
      const coder = await t.hub.join({ handle: 'coder-1' });
      await coder.post({ thread: 'general', text: 'before the roster' });
      const { ctx } = t.hub.internals;
      const keyOf = async (actor: Actor): Promise<string> => formatPublicKey(Buffer.from((await actor.whoami()).participant.publicKey, 'base64'));
      const hubKey = ctx.keys.hub();
      const roster = signRoster(
        {
          org_id: 'acme',
          version: 1,
          timestamp: '2026-11-24T12:00:00Z',
          members: [
            { pubkey: formatPublicKey(hubKey.raw), role: 'admin' },
            { pubkey: await keyOf(human), role: 'admin' },
            { pubkey: await keyOf(coder), role: 'member' },
          ],
          signatures: [],
        },
        hubKey.privateKey,
      );
      await t.hub.acceptRoster(roster);
      await coder.post({ thread: 'general', text: 'under the roster' });
      const lines = (await exportText(human, 'general')).trimEnd().split('\n');
      const parsed = lines.map((l) => JSON.parse(l) as Line);
      expect(parsed[0]).toMatchObject({ mode: 'roster' });
      expect(parsed.filter((l) => l.type === 'roster').map((l) => l.scope)).toEqual(['org', 'local']);
      expect(parsed.filter((l) => l.type === 'event').map((l) => [l.event.content, l.roster_version])).toEqual(
        expect.arrayContaining([
          ['before the roster', null],
          ['under the roster', 1],
        ]),
      );
      expect(verifyLines(lines)).toBeUndefined();
      // The reader who trusts roster v1 checks the export against it.
      expect(verifyLines(lines, roster)).toBeUndefined();
      // An event under the roster by someone the roster made an observer would fail: change the chain's role and re-sign.
      const demoted = signRoster({ ...roster, members: roster.members.map((m) => (m.role === 'member' ? { ...m, role: 'observer' as const } : m)), signatures: [] }, hubKey.privateKey);
      const forged = lines.map((l) => (JSON.parse(l).scope === 'org' ? JSON.stringify({ type: 'roster', scope: 'org', roster: demoted }) : l));
      expect(verifyLines(forged)?.reason).toMatch(/a message needs member, and the author was observer in roster version 1/);
    } finally {
      await t.close();
    }
  });
});

describe('signed export with a roster chain (verifier)', () => {
  const admin = privateKeyFromSeed(Buffer.alloc(32, 1));
  const writer = privateKeyFromSeed(Buffer.alloc(32, 2));
  const adminKey = formatPublicKey(rawPublicKeyOf(admin));
  const writerKey = formatPublicKey(rawPublicKeyOf(writer));
  const rosterV1 = signRoster({ org_id: 'acme', version: 1, timestamp: '2026-11-24T12:00:00Z', members: [{ pubkey: adminKey, role: 'admin' }, { pubkey: writerKey, role: 'member' }], signatures: [] }, admin);
  const rosterV2 = signRoster({ ...rosterV1, version: 2, timestamp: '2026-11-24T13:00:00Z', members: [{ pubkey: adminKey, role: 'admin' }, { pubkey: writerKey, role: 'operator' }], signatures: [] }, admin);
  const header = JSON.stringify({ type: 'parley-export', v: 1, hub: adminKey, mode: 'roster', thread: { id: 'T1', name: 'general', kind: 'channel' }, exported_at: '2026-11-24T14:00:00Z' });
  let senderSeq = 0;
  const event = (kind: string, rosterVersion: number, content: unknown = 'hi'): string => {
    senderSeq += 1;
    const fields: SignedEventFields = {
      id: `01KAPM5S00000000000000${String(senderSeq).padStart(4, '0')}`,
      from: rawPublicKeyOf(writer),
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
    return JSON.stringify({ type: 'event', seq: senderSeq, author: 'writer', roster_version: rosterVersion, event: eventFieldsToJson(fields), sig: signEvent(writer, fields).toString('base64url') });
  };
  const rosterLine = (roster: Roster): string => JSON.stringify({ type: 'roster', scope: 'org', roster });

  it('verify - a request needs operator in the roster in force when it was written: refused under v1, accepted under v2', () => {
    senderSeq = 0;
    const ok = [header, rosterLine(rosterV1), rosterLine(rosterV2), event('message', 1), event('request', 2, { request_id: 'r1', intent: 'x', params: null, hop: 0 })];
    expect(verifyLines(ok)).toBeUndefined();
    const early = [...ok, event('request', 1, { request_id: 'r2', intent: 'x', params: null, hop: 0 })];
    expect(verifyLines(early)).toMatchObject({ line: 6 });
    expect(verifyLines(early)?.reason).toMatch(/a request needs operator, and the author was member in roster version 1/);
  });

  it('verify - the roster chain must hold: a rollback, a version signed by a non-admin, or a missing version fail at their line', () => {
    senderSeq = 0;
    expect(verifyLines([header, rosterLine(rosterV2), rosterLine(rosterV1)])?.reason).toMatch(/not newer than version 2/);
    const byWriter = signRoster({ ...rosterV2, version: 3, signatures: [] }, writer);
    expect(verifyLines([header, rosterLine(rosterV2), rosterLine(byWriter)])).toMatchObject({ line: 3 });
    expect(verifyLines([header, rosterLine(rosterV2), rosterLine(byWriter)])?.reason).toMatch(/only an admin of version 2 may sign/);
    expect(verifyLines([header, rosterLine(rosterV2), event('message', 1)])?.reason).toMatch(/roster version 1, which the export does not include/);
  });

  it('verify - with a trusted roster given, the export must carry exactly that version', () => {
    senderSeq = 0;
    const lines = [header, rosterLine(rosterV1), rosterLine(rosterV2), event('message', 2)];
    expect(verifyLines(lines, rosterV2)).toBeUndefined();
    const other = signRoster({ ...rosterV2, timestamp: '2026-11-24T13:30:00Z', signatures: [] }, admin);
    expect(verifyLines(lines, other)?.reason).toMatch(/differs from the one you trust/);
    expect(verifyLines([header, rosterLine(rosterV1)], rosterV2)?.reason).toMatch(/do not include the roster you trust/);
    expect(verifyLines([header, rosterLine(rosterV1), event('message', 1)], rosterV2)?.reason).toMatch(/older than the roster you trust/);
  });

  it('verify - against a trusted roster, a forged older version or a local roster under a made-up hub key vouches for nothing', () => {
    senderSeq = 0;
    const forger = privateKeyFromSeed(Buffer.alloc(32, 3));
    const forgerKey = formatPublicKey(rawPublicKeyOf(forger));
    // A v1 that lists the real admin (so the real v2 chains onto it) and the forger.
    const fakeV1 = signRoster({ org_id: 'acme', version: 1, timestamp: '2026-11-24T11:00:00Z', members: [{ pubkey: adminKey, role: 'admin' }, { pubkey: forgerKey, role: 'admin' }, { pubkey: writerKey, role: 'operator' }], signatures: [] }, forger);
    const lines = [header, rosterLine(fakeV1), rosterLine(rosterV2), event('request', 1, { request_id: 'r1', intent: 'x', params: null, hop: 0 })];
    expect(verifyLines(lines, rosterV2)?.reason).toMatch(/older than the roster you trust/);
    // A local roster signed by a hub key the forger chose.
    const forgedHeader = JSON.stringify({ ...JSON.parse(header), hub: forgerKey });
    const localRoster = signRoster({ org_id: 'local:x', version: 1, timestamp: '2026-11-24T11:00:00Z', members: [{ pubkey: forgerKey, role: 'admin' }, { pubkey: writerKey, role: 'member' }], signatures: [] }, forger, EXPORT_ROSTER_DOMAIN);
    const local = [forgedHeader, rosterLine(rosterV2), JSON.stringify({ type: 'roster', scope: 'local', roster: localRoster })];
    expect(verifyLines(local, rosterV2)?.reason).toMatch(/not an admin of the roster you trust/);
    // Without a trusted roster the same file is only self-consistent, as the report says.
    expect(verifyLines(local)).toBeUndefined();
  });

  it('verify - a local roster is signed under the export roster\'s domain and an org roster under the roster\'s: swapped, each is refused', () => {
    senderSeq = 0;
    const localHeader = JSON.stringify({ ...JSON.parse(header), mode: 'local' });
    const asHubRoster = signRoster({ ...rosterV1, org_id: 'local:x', signatures: [] }, admin);
    const local = (roster: Roster): string => JSON.stringify({ type: 'roster', scope: 'local', roster });
    expect(verifyLines([localHeader, local(asHubRoster)])?.reason).toMatch(/roster refused: .*signed as a hub's roster \(parley\/roster\/v1\)/);
    expect(verifyLines([localHeader, local(signRoster({ ...asHubRoster, signatures: [] }, admin, EXPORT_ROSTER_DOMAIN))])).toBeUndefined();
    const exportRosterAsOrg = signRoster({ ...rosterV1, signatures: [] }, admin, EXPORT_ROSTER_DOMAIN);
    expect(verifyLines([header, rosterLine(exportRosterAsOrg)])?.reason).toMatch(/roster refused: .*signed as the roster of a signed export/);
  });

  it('verify - a gap in an author\'s sender_seq is reported, and fails with noGaps', () => {
    senderSeq = 0;
    const first = event('message', 1);
    event('message', 1);
    const third = event('message', 1);
    const verifier = new ExportVerifier();
    for (const line of [header, rosterLine(rosterV1), first, third]) verifier.line(line);
    expect(verifier.finish().gaps).toBe(1);
    const strict = new ExportVerifier({ noGaps: true });
    expect(() => [header, rosterLine(rosterV1), first, third].forEach((line) => strict.line(line))).toThrow(/line 4: .*1 of the author's events are missing/);
  });

  it('verify - sender_seq must only grow per author and epoch', () => {
    senderSeq = 0;
    const first = event('message', 1);
    const second = event('message', 1);
    expect(verifyLines([header, rosterLine(rosterV1), second, first])?.reason).toMatch(/sender_seq 1 after 2/);
  });
});

describe('parley export --signed and parley verify (CLI)', () => {
  const cleanups: Array<() => void> = [];
  let hub: RunningHub | undefined;
  afterEach(async () => {
    await stopHubs();
    hub = undefined;
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  it('cli - a signed export written with --out verifies; one changed byte fails with its line and exit 1', async () => {
    const { home, cleanup } = tempHome('parley-verify-');
    cleanups.push(cleanup);
    hub = await startServe(home);
    const cli = cliAt(home, hub.url);
    expect(cli('join', 'human', '--kind', 'human').status).toBe(0);
    expect(cli('join', 'coder-1').status).toBe(0);
    expect(cli('say', 'general', 'hello from the human', '--as', 'human').status).toBe(0);
    expect(cli('say', 'general', 'hello back', '--as', 'coder-1').status).toBe(0);
    const file = path.join(home, 'general.parley.jsonl');
    const exported = cli('export', 'general', '--signed', '--out', file, '--as', 'human');
    expect(exported.stderr).toBe('');
    expect(exported.stdout).toMatch(/^wrote \d+ bytes \(signed\) to /);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    const verified = cli('verify', file);
    expect(verified.stderr).toBe('');
    expect(verified.status).toBe(0);
    expect(verified.stdout).toMatch(/^verified: 3 events by 2 authors in #general, against the hub key ed25519:\S+ \(local mode\)/);

    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
    const k = lines.findIndex((l) => l.includes('hello back'));
    lines[k] = lines[k]!.replace('hello back', 'hello bacK');
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const failed = cli('verify', file);
    expect(failed.status).toBe(1);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toMatch(new RegExp(`does not verify: line ${k + 1}: event \\S+ \\(seq \\d+\\) by @coder-1 ed25519:\\S+: the signature does not verify`));

    const json = JSON.parse(cli('verify', file, '--json').stdout) as Line;
    expect(json).toMatchObject({ ok: false, line: k + 1 });
    const missing = cli('verify', path.join(home, 'nope.jsonl'));
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/Cannot read .*nope\.jsonl: no such file/);
    expect(cli('export', 'general', '--signed', '--format', 'markdown', '--as', 'human').status).toBe(2);
  });
});
