import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Roster } from '../../src/schema/roster.js';
import { ensureKeyFile, hubKeyPathOf } from '../../src/trust/key-files.js';
import { formatPublicKey, rawPublicKeyOf } from '../../src/trust/node-id.js';
import { rosterFileText } from '../../src/trust/roster-file.js';
import { signRoster } from '../../src/trust/roster.js';
import { childEnv, joinOver, restCall, startServe, type Json, type RunningHub } from '../helpers/serve.js';
import { runCli } from './run-cli.js';
import { homePerTest } from './home-per-test.js';

/**
 * The roster draft, kept apart from the roster in force: edits go to
 * <home>/roster.draft.json, which no hub loads; a hub starts on what it holds
 * and says a draft waits; "roster sign" needs no hub; "roster discard" drops it.
 * Real hubs (bin/parley serve) and the CLI in child processes, on temp homes.
 */
const freshHome = homePerTest();

const cli = (home: string) => (...args: string[]) => runCli(args, childEnv(home));
const trustOf = async (hub: RunningHub): Promise<Json> =>
  (((await (await fetch(`${hub.url}/api/v1/hub`, { headers: { authorization: `Bearer ${hub.adminToken()}` } })).json()) as Json).trust as Json);

describe('roster draft (a real hub, the CLI in child processes)', () => {
  it('roster draft - set-role, stop: the hub restarts on v1 and warns of draft v2; sign --as an admin with no hub running; the next start puts the new role in force', async () => {
    const home = freshHome();
    const parley = cli(home);
    const file = path.join(home, 'roster.json');
    const draftFile = path.join(home, 'roster.draft.json');
    let hub = await startServe(home);
    await joinOver(hub, { handle: 'human', profile: { kind: 'human' } });
    const coder = await joinOver(hub, { handle: 'coder-3' });
    // Local mode first makes @coder-3 a member, so that v1 holds it as one.
    expect((await parley('roster', 'set-role', '@coder-3', 'member')).status).toBe(0);
    const init = await parley('roster', 'init', '--org', 'acme');
    expect(init.status, init.stderr).toBe(0);
    const v1 = fs.readFileSync(file, 'utf8');

    const setRole = await parley('roster', 'set-role', '@coder-3', 'operator');
    expect(setRole.status, setRole.stderr).toBe(0);
    expect(setRole.stdout).toContain(`set @coder-3 to operator: roster acme v2 is a draft at ${draftFile} (unsigned, not in force)`);
    expect(fs.readFileSync(file, 'utf8')).toBe(v1);
    expect((JSON.parse(fs.readFileSync(draftFile, 'utf8')) as Roster).version).toBe(2);
    expect((await parley('stop')).status).toBe(0);

    hub = await startServe(home);
    expect(hub.output()).toContain(
      `WARNING: roster draft acme v2 at ${draftFile} is not in force (unsigned; roster acme v1 stays in force): sign it with "parley roster sign --as HANDLE"`,
    );
    expect(hub.output()).toContain('or drop it with "parley roster discard"');
    expect(await trustOf(hub)).toMatchObject({ mode: 'roster', version: 1 });
    expect((await restCall(hub, coder, 'GET', '/whoami')).json).toMatchObject({ access: 'member' });
    const shown = await parley('roster', 'show');
    expect(shown.stdout).toContain('roster acme v1');
    expect(shown.stdout).toContain('in force on the running hub');
    expect(shown.stdout).toContain(`pending: roster draft acme v2 at ${draftFile} is not in force`);
    expect(shown.stdout).toMatch(/~ operator\s+ed25519:\S+\s+@coder-3\s+\(was member\)/);
    const doctor = await parley('doctor', '--json');
    const trustCheck = (JSON.parse(doctor.stdout) as { checks: Array<{ name: string; ok: boolean; detail: string }> }).checks.find((c) => c.name === 'trust');
    expect(trustCheck).toMatchObject({ ok: true });
    expect(trustCheck!.detail).toContain(`roster acme v1 (3 members): access from the signed roster; roster draft acme v2 at ${draftFile} is not in force`);
    expect((await parley('stop')).status).toBe(0);

    // No hub runs: @human is found in the home's store, its key in the home's key files.
    const byOperator = await parley('roster', 'sign', '--as', 'coder-3');
    expect(byOperator.status).toBe(1);
    expect(byOperator.stderr).toContain("Not signed: @coder-3's key");
    expect(byOperator.stderr).toContain('is member in roster acme v1; only its admins may sign a new version');
    const signed = await parley('roster', 'sign', '--as', 'human');
    expect(signed.status, signed.stderr).toBe(0);
    expect(signed.stdout).toContain("signed roster acme v2 with @human's key (1 signature)");
    expect(signed.stdout).toContain(`no hub runs on this home: ${file} holds it now (the draft is gone); "parley serve" puts it in force`);
    expect(fs.existsSync(draftFile)).toBe(false);
    const onFile = JSON.parse(fs.readFileSync(file, 'utf8')) as Roster;
    expect(onFile).toMatchObject({ org_id: 'acme', version: 2 });
    expect(onFile.signatures).toHaveLength(1);

    hub = await startServe(home);
    expect(hub.output()).not.toContain('roster draft');
    expect(await trustOf(hub)).toMatchObject({ mode: 'roster', org: 'acme', version: 2 });
    expect((await restCall(hub, coder, 'GET', '/whoami')).json).toMatchObject({ access: 'operator', trust: { version: 2 } });
  }, 90_000);

  it('roster draft - discard drops the draft and names the version that stays; with none, says so (exit 0); the roster file is untouched', async () => {
    const home = freshHome();
    const parley = cli(home);
    const hubKey = ensureKeyFile(hubKeyPathOf(home)).privateKey;
    const file = path.join(home, 'roster.json');
    const draftFile = path.join(home, 'roster.draft.json');
    const v1: Roster = { org_id: 'acme', version: 1, timestamp: '2026-11-24T12:00:00Z', members: [{ pubkey: formatPublicKey(rawPublicKeyOf(hubKey)), role: 'admin' }], signatures: [] };
    fs.writeFileSync(file, rosterFileText(signRoster(v1, hubKey)));
    const before = fs.readFileSync(file, 'utf8');
    const added = await parley('roster', 'add', formatPublicKey(Buffer.alloc(32, 5)), '--role', 'member');
    expect(added.status, added.stderr).toBe(0);
    expect(fs.existsSync(draftFile)).toBe(true);

    const dropped = await parley('roster', 'discard');
    expect(dropped.status, dropped.stderr).toBe(0);
    expect(dropped.stdout).toBe(`dropped roster draft acme v2 (${draftFile}); roster acme v1 stays in force\n`);
    expect(fs.existsSync(draftFile)).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
    const again = await parley('roster', 'discard', '--json');
    expect(again.status).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ file: draftFile, inForce: { org_id: 'acme', version: 1 }, discarded: null });
    expect((await parley('roster', 'discard')).stdout).toBe(`no roster draft at ${draftFile}: nothing to discard (roster acme v1 stays in force)\n`);

    // The hub then starts on v1 with nothing to warn about.
    const hub = await startServe(home);
    expect(hub.output()).not.toContain('roster draft');
    expect(await trustOf(hub)).toMatchObject({ version: 1, members: 1 });
  }, 60_000);

  it('roster draft - a home whose roster.json holds an unsigned draft (as earlier versions wrote it): the hub starts on the version it holds, sets the draft aside, and "roster sign" puts it in force', async () => {
    const home = freshHome();
    const hubKey = ensureKeyFile(hubKeyPathOf(home)).privateKey;
    const hubPub = formatPublicKey(rawPublicKeyOf(hubKey));
    const file = path.join(home, 'roster.json');
    const draftFile = path.join(home, 'roster.draft.json');
    const member = formatPublicKey(Buffer.alloc(32, 6));
    const v1 = rosterFileText(signRoster({ org_id: 'acme', version: 1, timestamp: '2026-11-24T12:00:00Z', members: [{ pubkey: hubPub, role: 'admin' }], signatures: [] }, hubKey));
    fs.writeFileSync(file, v1);
    let hub = await startServe(home);
    expect(await trustOf(hub)).toMatchObject({ version: 1 });
    expect(await hub.stop()).toBe(0);
    // What "roster add" wrote before drafts had a file of their own: v2, unsigned, in the roster file.
    const v2: Roster = { org_id: 'acme', version: 2, timestamp: '2026-11-24T12:00:01Z', members: [{ pubkey: hubPub, role: 'admin' }, { pubkey: member, role: 'member' }], signatures: [] };
    fs.writeFileSync(file, rosterFileText(v2));

    hub = await startServe(home);
    expect(hub.output()).toContain(`the roster file held an unsigned draft (v2), never in force: moved it to ${draftFile}`);
    expect(hub.output()).toContain(`WARNING: roster draft acme v2 at ${draftFile} is not in force (unsigned; roster acme v1 stays in force)`);
    expect(await trustOf(hub)).toMatchObject({ version: 1, members: 1 });
    expect(fs.readFileSync(file, 'utf8')).toBe(v1);
    expect(fs.readFileSync(draftFile, 'utf8')).toBe(rosterFileText(v2));

    // With the hub running, sign hands the draft to it, as before; once in force, the draft is gone.
    const signed = await runCli(['roster', 'sign'], childEnv(home));
    expect(signed.status, signed.stderr).toBe(0);
    expect(signed.stdout).toContain('the running hub accepted it: roster acme v2 (2 members) is in force');
    expect(signed.stdout).toContain(`${file} holds it now; the draft is gone`);
    expect(fs.existsSync(draftFile)).toBe(false);
    expect(await trustOf(hub)).toMatchObject({ version: 2, members: 2 });
  }, 60_000);
});
