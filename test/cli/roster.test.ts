import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Roster } from '../../src/schema/roster.js';
import { ensureKeyFile, hubKeyPathOf } from '../../src/trust/key-files.js';
import { formatPublicKey, rawPublicKeyOf } from '../../src/trust/node-id.js';
import { rosterFileText } from '../../src/trust/roster-file.js';
import { signRoster } from '../../src/trust/roster.js';
import { tempHome } from '../helpers/hub.js';
import { childEnv, joinOver, restCall, startServe, stopHubs, type Json, type RunningHub } from '../helpers/serve.js';
import { fileSnapshot } from '../helpers/store-snapshot.js';
import { runCli } from './run-cli.js';
import { homePerTest } from './home-per-test.js';

/** `parley roster` against a real hub process, as a user runs it; and where the hub finds its roster. */
describe('parley roster (a real hub, the CLI in child processes)', () => {
  let hub: RunningHub;
  let home: string;
  let cleanup: () => void = () => undefined;
  const tokens: Record<string, string> = {};
  const roster = (...args: string[]) => runCli(['roster', ...args], childEnv(home));
  const hubStatus = async (): Promise<Json> => (await fetch(`${hub.url}/api/v1/hub`, { headers: { authorization: `Bearer ${hub.adminToken()}` } })).json() as Promise<Json>;

  beforeAll(async () => {
    ({ home, cleanup } = tempHome());
    hub = await startServe(home);
    tokens.boss = await joinOver(hub, { handle: 'boss', session: 'proj', profile: { kind: 'human' } });
    tokens.coder = await joinOver(hub, { handle: 'coder', session: 'proj' });
  }, 30_000);

  afterAll(async () => {
    await stopHubs();
    cleanup();
  });

  it('roster cli - local mode: show says so; set-role sets the hub\'s access at once and writes no file; a bad role names ROLE (exit 2)', async () => {
    const shown = await roster('show');
    expect(shown.status).toBe(0);
    expect(shown.stdout).toContain('trust: local mode (no roster) — humans admin, agents operator');
    expect(shown.stdout).toContain(`no roster file at ${path.join(home, 'roster.json')}`);
    const set = await roster('set-role', '@coder', 'member');
    expect(set.status, set.stderr).toBe(0);
    expect(set.stdout).toContain('local mode (no roster): @coder is now member on the running hub');
    expect((await restCall(hub, tokens.coder!, 'GET', '/whoami')).json).toMatchObject({ access: 'member', trust: { mode: 'local' } });
    expect(fs.existsSync(path.join(home, 'roster.json'))).toBe(false);
    const bad = await roster('set-role', '@coder', 'boss');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('Invalid ROLE: "boss" is not a role; give observer, member, operator or admin.');
  });

  it('roster cli - init, add/set-role/remove drafts, sign (hub key, --as an admin), show, verify; the hub follows each signed version', async () => {
    const file = path.join(home, 'roster.json');
    // init: this hub as admin and the participants with their access now (@coder was set to member above).
    const init = await roster('init', '--org', 'acme');
    expect(init.status, init.stderr).toBe(0);
    expect(init.stdout).toContain('the running hub accepted it: roster acme v1 (3 members) is in force');
    expect((await hubStatus()).trust).toEqual({ mode: 'roster', org: 'acme', version: 1, members: 3 });
    const v1 = JSON.parse(fs.readFileSync(file, 'utf8')) as Roster;
    expect(v1.members.map((m) => m.role).sort()).toEqual(['admin', 'admin', 'member']);
    // The hub itself is listed as a hub, its participants as participants.
    expect(v1.members.filter((m) => m.kind === 'hub')).toEqual([expect.objectContaining({ role: 'admin', kind: 'hub' })]);
    const again = await roster('init', '--org', 'acme');
    expect(again.status).toBe(1);
    expect(again.stderr).toContain(`A roster already exists at ${file}`);
    expect((await roster('init')).stderr).toContain('Give the organisation id: parley roster init --org ID');

    // Edits make an unsigned draft one version up.
    const badKey = await roster('add', 'ed25519:nope', '--role', 'member');
    expect(badKey.status).toBe(2);
    expect(badKey.stderr).toContain('Invalid member');
    const noRole = await roster('add', '@boss', '--role', 'root');
    expect(noRole.stderr).toContain('Invalid --role: "root" is not a role');
    const dup = await roster('add', '@boss', '--role', 'member');
    expect(dup.stderr).toContain('@boss is already a member (admin); use "parley roster set-role"');
    const setRole = await roster('set-role', '@coder', 'operator');
    expect(setRole.status, setRole.stderr).toBe(0);
    expect(setRole.stdout).toContain('set @coder to operator: roster acme v2');
    const watcher = formatPublicKey(Buffer.alloc(32, 9));
    expect((await roster('add', watcher, '--role', 'observer', '--archive')).stdout).toContain(`added ${watcher} as observer: roster acme v2`);
    const draftShown = await roster('show');
    expect(draftShown.stdout).toContain(`pending: roster draft acme v2 at ${path.join(home, 'roster.draft.json')} is not in force (unsigned; roster acme v1 stays in force)`);
    expect(draftShown.stdout).toMatch(/operator\s+ed25519:\S+\s+@coder/);
    expect(draftShown.stdout).toMatch(/observer\s+ed25519:\S+\s+archive/);
    const unsigned = await roster('verify');
    expect(unsigned.status).toBe(1);
    expect(unsigned.stdout).toContain('version 2 is unsigned');
    // Still v1 in force: a draft changes nothing.
    expect((await hubStatus()).trust).toMatchObject({ version: 1 });

    // Signed by an admin participant's key this hub holds: in force.
    expect((await roster('sign', '--as', 'nobody')).stderr).toContain('No participant @nobody on the running hub');
    const signed = await roster('sign', '--as', 'boss');
    expect(signed.status, signed.stderr).toBe(0);
    expect(signed.stdout).toContain("signed roster acme v2 with @boss's key");
    expect(signed.stdout).toContain('roster acme v2 (4 members) is in force');
    expect((await restCall(hub, tokens.coder!, 'GET', '/whoami')).json).toMatchObject({ access: 'operator', trust: { mode: 'roster', org: 'acme', version: 2, members: 4 } });
    const shown = await roster('show');
    expect(shown.stdout).toContain('in force on the running hub');
    expect(shown.stdout).toMatch(/valid\s+ed25519:\S+\s+@boss/);
    expect(shown.stdout).toMatch(/admin\s+ed25519:\S+\s+this hub/);
    const verified = await roster('verify');
    expect(verified.status).toBe(0);
    expect(verified.stdout).toContain('the running hub has this version in force (acme v2)');

    // @coder (an operator) may not sign: refused before anything is written.
    const before = fs.readFileSync(file, 'utf8');
    const operatorSigns = await roster('sign', '--as', 'coder');
    expect(operatorSigns.status).toBe(1);
    expect(operatorSigns.stderr).toContain("Not signed: @coder's key");
    expect(operatorSigns.stderr).toContain('is operator in roster acme v2; only its admins may sign a new version');
    expect(fs.readFileSync(file, 'utf8')).toBe(before);

    // The hub refuses a rollback (v1 again) and a push by a participant below admin; nothing changes.
    const store = fileSnapshot(path.join(home, 'parley.db'));
    const back = await fetch(`${hub.url}/api/v1/hub/roster`, { method: 'POST', headers: { authorization: `Bearer ${hub.adminToken()}`, 'content-type': 'application/json' }, body: JSON.stringify(v1) });
    expect(back.status).toBe(409);
    expect(((await back.json()) as Json).error).toMatchObject({ code: 'ROSTER_ROLLBACK', field: 'version' });
    const byOperator = await restCall(hub, tokens.coder!, 'POST', '/hub/roster', v1);
    expect(byOperator.status).toBe(403);
    expect(byOperator.json.error).toMatchObject({ code: 'FORBIDDEN_ROLE', details: { need: 'admin', have: 'operator' } });
    expect(fileSnapshot(path.join(home, 'parley.db'))).toEqual(store);
    const old = path.join(home, 'v1.json');
    fs.writeFileSync(old, rosterFileText(v1));
    const oldVerified = await roster('verify', old);
    expect(oldVerified.status).toBe(1);
    expect(oldVerified.stdout).toContain('version 1 is not newer than version 2 in force');

    // Removed and signed with the hub key while @coder is at work (a live session): the hub asks for
    // a confirmation and nothing changes until it has one; confirmed, the coder is out.
    expect((await restCall(hub, tokens.coder!, 'POST', '/threads/general/messages', { text: 'on it' })).status).toBe(201);
    expect((await roster('remove', '@coder')).stdout).toContain('removed @coder: roster acme v3');
    const unconfirmed = await roster('sign');
    expect(unconfirmed.status).toBe(1);
    expect(unconfirmed.stdout).toContain('the running hub refused it (ROSTER_UNCONFIRMED): Roster acme v3 leaves out @coder, who holds a live session on this hub');
    expect(unconfirmed.stdout).toContain('To put it in force anyway, run "parley roster sign --confirm".');
    expect((await hubStatus()).trust).toMatchObject({ version: 2 });
    expect((await roster('sign', '--confirm')).stdout).toContain('roster acme v3 (3 members) is in force');
    const out = await restCall(hub, tokens.coder!, 'POST', '/threads/general/messages', { text: 'still here?' });
    expect(out.status).toBe(403);
    expect(out.json.error.code).toBe('NOT_IN_ROSTER');
    // In roster mode set-role edits the roster, never the local setting.
    expect((await roster('set-role', '@boss', 'member')).stdout).toContain('set @boss to member: roster acme v4');

    const status = await runCli(['status'], childEnv(home));
    expect(status.stdout).toContain('trust:      roster acme v3 (3 members)');
    const doctor = await runCli(['doctor', '--json'], childEnv(home, { PARLEY_URL: hub.url }));
    // The v4 draft waits beside the roster file, and doctor says so.
    expect((JSON.parse(doctor.stdout) as { checks: Array<{ name: string; detail: string }> }).checks.find((c) => c.name === 'trust')?.detail).toBe(
      `roster acme v3 (3 members): access from the signed roster; roster draft acme v4 at ${path.join(home, 'roster.draft.json')} is not in force (unsigned; roster acme v3 stays in force): sign it with "parley roster sign --as HANDLE" (or "parley roster sign" with the hub key), or drop it with "parley roster discard"`,
    );
  }, 60_000);
});

describe('roster path: trust.rosterPath < PARLEY_ROSTER < --roster', () => {
  const newHome = homePerTest();

  /** A home with its hub key and three rosters signed by it, one per org, named where each setting points. */
  function homeWithRosters(): { home: string; files: Record<'config' | 'env' | 'flag', string> } {
    const home = newHome();
    const key = ensureKeyFile(hubKeyPathOf(home)).privateKey;
    const pubkey = formatPublicKey(rawPublicKeyOf(key));
    const files = { config: path.join(home, 'config-roster.json'), env: path.join(home, 'env-roster.json'), flag: path.join(home, 'flag-roster.json') };
    for (const [from, file] of Object.entries(files)) {
      const doc: Roster = { org_id: `from-${from}`, version: 1, timestamp: '2026-11-24T12:00:00Z', members: [{ pubkey, role: 'admin' }], signatures: [] };
      fs.writeFileSync(file, rosterFileText(signRoster(doc, key)));
    }
    // The config names its file relative to the home.
    fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ trust: { rosterPath: 'config-roster.json' } }));
    return { home, files };
  }

  const orgOf = async (hub: RunningHub): Promise<unknown> =>
    (((await (await fetch(`${hub.url}/api/v1/hub`, { headers: { authorization: `Bearer ${hub.adminToken()}` } })).json()) as Json).trust as Json).org;

  it('roster path - the served hub takes the config file, then PARLEY_ROSTER over it, then --roster over both', async () => {
    const a = homeWithRosters();
    expect(await orgOf(await startServe(a.home))).toBe('from-config');
    const b = homeWithRosters();
    expect(await orgOf(await startServe(b.home, { env: { PARLEY_ROSTER: b.files.env } }))).toBe('from-env');
    const c = homeWithRosters();
    expect(await orgOf(await startServe(c.home, { env: { PARLEY_ROSTER: c.files.env }, args: ['--roster', c.files.flag] }))).toBe('from-flag');
  }, 60_000);

  it('roster path - the roster commands read the same ladder (no hub running); a missing file is named', async () => {
    const { home, files } = homeWithRosters();
    const show = (env: NodeJS.ProcessEnv, ...args: string[]) => runCli(['roster', 'show', ...args], childEnv(home, env));
    expect((await show({})).stdout).toContain(`roster from-config v1 (2026-11-24T12:00:00Z) at ${files.config}`);
    expect((await show({ PARLEY_ROSTER: files.env })).stdout).toContain('roster from-env v1');
    expect((await show({ PARLEY_ROSTER: files.env }, '--roster', files.flag)).stdout).toContain('roster from-flag v1');
    const missing = await runCli(['roster', 'sign', '--roster', path.join(home, 'nope.json')], childEnv(home));
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain(`No roster file at ${path.join(home, 'nope.json')} to sign`);
    const verify = await runCli(['roster', 'verify', path.join(home, 'nope.json')], childEnv(home));
    expect(verify.status).toBe(1);
    expect(verify.stderr).toContain('there is no such file');
  });
});
