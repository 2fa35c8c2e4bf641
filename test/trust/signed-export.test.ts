import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/hub/actor.js';
import type { Roster } from '../../src/schema/roster.js';
import { readKeyFile } from '../../src/trust/key-files.js';
import { formatPublicKey } from '../../src/trust/node-id.js';
import { signRoster } from '../../src/trust/roster.js';
import { openTestHub, type TestHub } from '../helpers/hub.js';
import { cliAt } from '../helpers/serve.js';
import { servedHubsPerTest } from '../helpers/served-hub.js';
import { exportLines, headerFieldsOf, sealedBy, verifyLines, type Line } from './export-lines.js';

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
    lines = await exportLines(human, 'general');
  });
  afterAll(async () => {
    await t.close();
  });

  it('export - a real conversation exports with a signed header, a hub-signed local roster, every event and a signed trailer, and verifies', () => {
    const header = JSON.parse(lines[0]!) as Line;
    expect(header).toMatchObject({ type: 'parley-export', v: 2, mode: 'local', thread: { name: 'general', kind: 'channel' }, sig: expect.any(String) });
    expect(header.hub).toBe(formatPublicKey(t.hub.internals.ctx.keys.hub().raw));
    expect(header.authors.map((a: Line) => a.handle).sort()).toEqual(['coder-1', 'human']);
    const roster = JSON.parse(lines[1]!) as Line;
    expect(roster).toMatchObject({ type: 'roster', scope: 'local' });
    expect(roster.roster.signatures.map((s: Line) => s.pubkey)).toEqual([header.hub]);
    const events = lines.slice(2, -1).map((l) => JSON.parse(l) as Line);
    expect(events.map((e) => e.event.kind)).toEqual(['system', 'message', 'message', 'message', 'request', 'response', 'control', 'control']);
    expect(events.every((e) => e.type === 'event' && typeof e.sig === 'string' && e.roster_version === null)).toBe(true);
    const trailer = JSON.parse(lines.at(-1)!) as Line;
    expect(trailer).toMatchObject({ type: 'parley-export-end', thread: header.thread.id, events: 8, first_seq: events[0]!.seq, last_seq: events.at(-1)!.seq, chain: expect.any(String), sig: expect.any(String) });
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

  it('export - another author\'s key, a missing roster, a replayed event and an event of another thread each fail, naming the line', () => {
    const events = lines.slice(2, -1).map((l) => JSON.parse(l) as Line);
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

    const replayed = [...lines.slice(0, -1), lines[3]!, lines.at(-1)!];
    expect(verifyLines(replayed)).toMatchObject({ line: lines.length });
    expect(verifyLines(replayed)?.reason).toMatch(/appears twice/);

    // Even under a header the hub key signed for another thread, the events' own signed thread tells.
    const hub = t.hub.internals.ctx.keys.hub();
    const elsewhere = sealedBy(hub, { ...headerFieldsOf(lines), thread: { id: 'another-thread', name: 'general', kind: 'channel' } }, lines.slice(1, -1));
    expect(verifyLines(elsewhere)).toMatchObject({ line: 3 });
    expect(verifyLines(elsewhere)?.reason).toMatch(/belongs to thread \S+, not the exported another-thread/);

    expect(verifyLines(['not json'])).toMatchObject({ line: 1 });
    expect(verifyLines([JSON.stringify({ type: 'parley-export', v: 2 })])?.reason).toMatch(/not a Parley signed export header/);
  });

  it('export - the local roster lists the hub and the thread\'s authors only, never the hub\'s other participants', async () => {
    const outsider = await t.hub.join({ handle: 'outsider', session: 'elsewhere' });
    const outsiderKey = formatPublicKey(Buffer.from((await outsider.whoami()).participant.publicKey, 'base64'));
    const again = await exportLines(human, 'general');
    const roster = (JSON.parse(again[1]!) as Line).roster as Roster;
    const authors = new Set(again.slice(2, -1).map((l) => (JSON.parse(l) as Line).event.from as string));
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
      const lines = await exportLines(human, 'general');
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
      expect(verifyLines(lines, { anchor: roster })).toBeUndefined();
      // An event under the roster by someone the roster made an observer would fail: change the chain's role and re-sign.
      const demoted = signRoster({ ...roster, members: roster.members.map((m) => (m.role === 'member' ? { ...m, role: 'observer' as const } : m)), signatures: [] }, hubKey.privateKey);
      const forged = lines.map((l) => (JSON.parse(l).scope === 'org' ? JSON.stringify({ type: 'roster', scope: 'org', roster: demoted }) : l));
      expect(verifyLines(forged)?.reason).toMatch(/a message needs member, and the author was observer in roster version 1/);
    } finally {
      await t.close();
    }
  });
});

describe('parley export --signed and parley verify (CLI)', () => {
  const served = servedHubsPerTest();

  it('cli - a signed export written with --out or redirected from stdout verifies; one changed byte fails with its line and exit 1', async () => {
    const { hub, home } = await served.serve(served.home('parley-verify-'));
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
    expect(verified.stdout).toMatch(/^verified: 3 events \(seq \d+-\d+\) by 2 authors \(@human, @coder-1\) in #general, against the hub key ed25519:\S+ \(local mode\)\n$/);
    expect(JSON.parse(cli('verify', file, '--json').stdout)).toMatchObject({ ok: true, events: 3, authors: 2, handles: ['human', 'coder-1'], thread: { name: 'general' } });

    // Redirected stdout gives the same bytes as --out (no line feed added after the file), so it verifies too.
    const printed = cli('export', 'general', '--signed', '--as', 'human');
    expect(printed.status).toBe(0);
    const redirected = path.join(home, 'redirected.jsonl');
    fs.writeFileSync(redirected, printed.stdout);
    expect(printed.stdout.endsWith('}\n')).toBe(true);
    expect(cli('verify', redirected).status, cli('verify', redirected).stderr).toBe(0);

    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
    // Every event taken out (what used to verify as "0 events"): exit 1, naming the trailer's line.
    const emptied = path.join(home, 'emptied.jsonl');
    fs.writeFileSync(emptied, `${lines.filter((l) => !l.startsWith('{"type":"event"')).join('\n')}\n`);
    const empty = cli('verify', emptied);
    expect(empty.status).toBe(1);
    expect(empty.stderr).toMatch(/does not verify: line 3: the export holds no events \(the hub exported 3\); there is nothing to verify\n$/);

    const k = lines.findIndex((l) => l.includes('hello back'));
    // An unsigned field rewritten with terminal controls: the failure names it, escaped, never raw.
    const relabelled = path.join(home, 'relabelled.jsonl');
    const withControls = lines.map((l, i) => (i === k ? JSON.stringify({ ...(JSON.parse(l) as Line), author: '\u001b[2Jhuman\u202e' }) : l));
    fs.writeFileSync(relabelled, `${withControls.join('\n')}\n`);
    const controls = cli('verify', relabelled);
    expect(controls.status).toBe(1);
    expect(controls.stderr).toContain('names its author @\\x1b[2Jhuman\\u202e, but the hub signed this key as @coder-1');
    const raw = (text: string): boolean => text.includes('\u001b') || text.includes('\u202e');
    expect(raw(controls.stderr)).toBe(false);
    expect(raw(cli('verify', relabelled, '--json').stdout)).toBe(false);

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
