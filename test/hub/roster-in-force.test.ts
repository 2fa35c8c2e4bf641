import fs from 'node:fs';
import path from 'node:path';
import type { KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Actor } from '../../src/hub/actor.js';
import { openHub, type HubOptions } from '../../src/hub/hub.js';
import type { Access } from '../../src/schema/access.js';
import type { Roster } from '../../src/schema/roster.js';
import { ensureKeyFile, hubKeyPathOf } from '../../src/trust/key-files.js';
import { formatPublicKey, rawPublicKeyOf } from '../../src/trust/node-id.js';
import { rosterFileText } from '../../src/trust/roster-file.js';
import { signRoster } from '../../src/trust/roster.js';
import { createMemoryLogger } from '../../src/util/logger.js';
import { caught, tempHomesRemovedAfterEach, testHubsClosedAfterEach, type TestHub } from '../helpers/hub.js';
import { connectInMemory } from '../helpers/mcp.js';
import { fileSnapshot } from '../helpers/store-snapshot.js';

/** The roster put in force: at start (store chain and file), by Hub.acceptRoster, and what follows from it. */
const hubs = testHubsClosedAfterEach();
const scratchHome = tempHomesRemovedAfterEach();

const members = (list: Array<[string, Access, boolean?]>): Roster['members'] => list.map(([pubkey, role, archive]) => ({ pubkey, role, ...(archive ? { archive } : {}) }));

function draft(version: number, list: Array<[string, Access, boolean?]>, org = 'acme'): Roster {
  return { org_id: org, version, timestamp: `2026-11-24T12:00:0${version % 10}Z`, members: members(list), signatures: [] };
}

interface Setup {
  t: TestHub;
  hubKey: KeyObject;
  hubPub: string;
  boss: Actor;
  coder: Actor;
  keyOf: (actor: Actor) => KeyObject;
  pub: (actor: Actor) => string;
}

async function setup(options: Partial<HubOptions> = {}): Promise<Setup> {
  const t = await hubs.open({ config: { chat: { limits: { writesPerMinute: 0 } } }, ...options });
  const boss = await t.hub.join({ handle: 'boss', session: 's', profile: { kind: 'human' } });
  const coder = await t.hub.join({ handle: 'coder', session: 's' });
  const { keys } = t.hub.internals.ctx;
  const hubKey = keys.hub().privateKey;
  return {
    t,
    hubKey,
    hubPub: formatPublicKey(keys.hub().raw),
    boss,
    coder,
    keyOf: (actor) => keys.participant(actor.participant.id).privateKey,
    pub: (actor) => formatPublicKey(Buffer.from(actor.participant.publicKey, 'base64')),
  };
}

const lastRosterVersion = (t: TestHub): unknown => (t.hub.internals.store.db.prepare('SELECT roster_version FROM events ORDER BY seq DESC LIMIT 1').get() as { roster_version: unknown }).roster_version;

describe('roster in force on a running hub', () => {
  it('roster accept - an admin-signed roster goes in force at once: access, roster_version on new events, NOT_IN_ROSTER for a stranger, written to the file', async () => {
    const s = await setup();
    const stranger = await s.t.hub.join({ handle: 'stranger', session: 's' });
    await s.coder.post({ thread: 'general', text: 'local mode' });
    expect(lastRosterVersion(s.t)).toBeNull();
    const v1 = signRoster(draft(1, [[s.hubPub, 'admin'], [s.pub(s.boss), 'admin'], [s.pub(s.coder), 'member']]), s.hubKey);
    const { roster, file, written } = await s.t.hub.acceptRoster(v1);
    expect(roster.version).toBe(1);
    expect(s.t.hub.trust).toEqual({ mode: 'roster', org: 'acme', version: 1, members: 3 });
    expect(written).toBe(true);
    expect(file).toBe(path.join(s.t.home, 'roster.json'));
    expect(fs.readFileSync(file, 'utf8')).toBe(rosterFileText(v1));
    expect(s.coder.access).toBe('member');
    await s.coder.post({ thread: 'general', text: 'under the roster' });
    expect(lastRosterVersion(s.t)).toBe(1);
    const refused = await caught(() => stranger.post({ thread: 'general', text: 'hello?' }));
    expect(refused.code).toBe('NOT_IN_ROSTER');
    expect(refused.message).toContain('not in roster acme v1');
    expect(refused.message).toContain('Ask @boss to add it: parley roster add ed25519:');
  });

  it('roster accept - refused when a non-admin signed it, or on a rollback (equal or lower version): nothing stored, the file and access unchanged', async () => {
    const s = await setup();
    await s.t.hub.acceptRoster(signRoster(draft(1, [[s.hubPub, 'admin'], [s.pub(s.coder), 'operator']]), s.hubKey));
    const v2 = signRoster(draft(2, [[s.hubPub, 'admin'], [s.pub(s.coder), 'admin']]), s.hubKey);
    await s.t.hub.acceptRoster(v2);
    const file = path.join(s.t.home, 'roster.json');
    const store = path.join(s.t.home, 'parley.db');
    const before = { file: fs.readFileSync(file, 'utf8'), store: fileSnapshot(store), chain: s.t.hub.roster().chain.length };
    // Signed by @boss, who is not in v2.
    const byMember = signRoster(draft(3, [[s.hubPub, 'admin'], [s.pub(s.boss), 'admin']]), s.keyOf(s.boss));
    const notAdmin = await caught(() => s.t.hub.acceptRoster(byMember));
    expect(notAdmin).toMatchObject({ code: 'ROSTER_INVALID', field: 'signatures.0' });
    expect(notAdmin.message).toContain('not a member of version 2; only an admin of version 2 may sign');
    const equal = await caught(() => s.t.hub.acceptRoster(signRoster(draft(2, [[s.hubPub, 'admin']]), s.hubKey)));
    expect(equal).toMatchObject({ code: 'ROSTER_ROLLBACK', field: 'version' });
    const lower = await caught(() => s.t.hub.acceptRoster(signRoster(draft(1, [[s.hubPub, 'admin']]), s.hubKey)));
    expect(lower).toMatchObject({ code: 'ROSTER_ROLLBACK', field: 'version' });
    expect(lower.message).toContain('version 1 is not newer than version 2 in force');
    const tampered = { ...v2, version: 3 };
    expect(await caught(() => s.t.hub.acceptRoster(tampered))).toMatchObject({ code: 'BAD_SIGNATURE', field: 'signatures.0' });
    expect({ file: fs.readFileSync(file, 'utf8'), store: fileSnapshot(store), chain: s.t.hub.roster().chain.length }).toEqual(before);
    expect(s.t.hub.trust).toMatchObject({ version: 2 });
    expect(s.coder.access).toBe('admin');
  });

  it('roster accept - a role change takes effect live: an operator made member loses request_send (refused, and gone from its MCP tools with tools/list_changed)', async () => {
    const s = await setup();
    await s.t.hub.acceptRoster(signRoster(draft(1, [[s.hubPub, 'admin'], [s.pub(s.boss), 'admin'], [s.pub(s.coder), 'operator']]), s.hubKey));
    const client = await connectInMemory(s.t.hub, 'coder', 's', 'all');
    hubs.defer(() => client.close());
    expect(await client.toolNames()).toContain('request_send');
    expect((await client.call('request_send', { to: 'boss', intent: 'first' })).isError).toBe(false);
    const changes = client.listChanged();
    await s.t.hub.acceptRoster(signRoster(draft(2, [[s.hubPub, 'admin'], [s.pub(s.boss), 'admin'], [s.pub(s.coder), 'member']]), s.keyOf(s.boss)));
    await expect.poll(() => client.listChanged()).toBe(changes + 1);
    expect(await client.toolNames()).not.toContain('request_send');
    expect((await client.call('request_send', { to: 'boss', intent: 'second' })).text).toMatch(/^FORBIDDEN_ROLE: request_send needs operator; you \(@coder\) are member/);
    expect(await caught(() => s.coder.request({ to: 'boss', intent: 'third' }))).toMatchObject({ code: 'FORBIDDEN_ROLE' });
  });

  it('roster archive - the hub key marked archive keeps history past the message limit; unmarked, it is pruned', async () => {
    // The pruner never fires by itself here: the test calls it.
    const s = await setup({ config: { chat: { limits: { writesPerMinute: 0 } }, retention: { intervalMs: 86_400_000, messages: 2 } } });
    const { t, coder } = s;
    await t.hub.acceptRoster(signRoster(draft(1, [[s.hubPub, 'admin', true], [s.pub(s.coder), 'member']]), s.hubKey));
    for (const text of ['a', 'b', 'c', 'd']) await coder.post({ thread: 'general', text });
    expect((await t.hub.prune()).events).toBe(0);
    await t.hub.acceptRoster(signRoster(draft(2, [[s.hubPub, 'admin'], [s.pub(s.coder), 'member']]), s.hubKey));
    expect((await t.hub.prune()).events).toBeGreaterThan(0);
    const { events } = await coder.history({ thread: 'general', limit: 50 });
    expect(events.filter((e) => e.type === 'message').map((e) => e.content)).toEqual(['c', 'd']);
  });
});

describe('roster at start: the newest of the store chain and the roster file', () => {
  /** A home whose hub key exists before the hub opens, so a roster can name it. */
  function homeWithKey(): { home: string; hubKey: KeyObject; hubPub: string } {
    const home = scratchHome();
    const hubKey = ensureKeyFile(hubKeyPathOf(home)).privateKey;
    return { home, hubKey, hubPub: formatPublicKey(rawPublicKeyOf(hubKey)) };
  }

  async function open(home: string, rosterPath?: string): Promise<{ t: TestHub; logged: string[] }> {
    const logger = createMemoryLogger();
    const hub = await openHub({ home, logger, config: rosterPath ? { trust: { rosterPath } } : {} });
    const opened = { hub, home, logger, close: () => hub.close() };
    return { t: opened, logged: logger.records.filter((r) => r.level === 'error').map((r) => `${r.msg}: ${(r.error as Error | undefined)?.message}`) };
  }

  it('roster start - a newer admin-signed file is accepted; an equal-but-changed or older file is refused and logged, and the stored version stays in force', async () => {
    const { home, hubKey, hubPub } = homeWithKey();
    const file = path.join(home, 'team-roster.json');
    const other = formatPublicKey(Buffer.alloc(32, 7));
    fs.writeFileSync(file, rosterFileText(signRoster(draft(1, [[hubPub, 'admin']]), hubKey)));
    let opened = await open(home, 'team-roster.json');
    expect(opened.t.hub.trust).toEqual({ mode: 'roster', org: 'acme', version: 1, members: 1 });
    await opened.t.close();
    fs.writeFileSync(file, rosterFileText(signRoster(draft(2, [[hubPub, 'admin'], [other, 'member']]), hubKey)));
    opened = await open(home, 'team-roster.json');
    expect(opened.t.hub.trust).toMatchObject({ version: 2, members: 2 });
    expect(opened.logged).toEqual([]);
    await opened.t.close();
    // The same version, changed (the member dropped): refused, v2 as stored stays.
    fs.writeFileSync(file, rosterFileText(signRoster(draft(2, [[hubPub, 'admin']]), hubKey)));
    opened = await open(home, 'team-roster.json');
    expect(opened.t.hub.trust).toMatchObject({ version: 2, members: 2 });
    expect(opened.logged.join('\n')).toMatch(/roster file not used; roster acme v2 \(from the store\) stays in force: .*version 2 differs from version 2 already in force/);
    await opened.t.close();
    // An older one: a rollback, refused.
    fs.writeFileSync(file, rosterFileText(signRoster(draft(1, [[hubPub, 'admin']]), hubKey)));
    opened = await open(home, 'team-roster.json');
    expect(opened.t.hub.trust).toMatchObject({ version: 2, members: 2 });
    expect(opened.logged.join('\n')).toContain('version 1 is not newer than version 2 in force');
    await opened.t.close();
    // A newer one this hub cannot accept (signed by a key that is no admin of v2): the start stops, rather than run on v2.
    const stranger = ensureKeyFile(path.join(home, 'stranger.key')).privateKey;
    fs.writeFileSync(file, rosterFileText(signRoster(draft(3, [[hubPub, 'admin']]), stranger)));
    const stopped = await caught(() => openHub({ home, logger: createMemoryLogger(), config: { trust: { rosterPath: 'team-roster.json' } } }));
    expect(stopped).toMatchObject({ code: 'ROSTER_INVALID', field: 'version' });
    expect(stopped.message).toMatch(/holds roster version 3, newer than version 2 in force here, but it cannot be accepted/);
    // A file with the same version unchanged (a plain restart) is quiet.
    fs.writeFileSync(file, rosterFileText(signRoster(draft(2, [[hubPub, 'admin'], [other, 'member']]), hubKey)));
    opened = await open(home, 'team-roster.json');
    expect(opened.logged).toEqual([]);
    await opened.t.close();
  });

  it('roster start - an unsigned file newer than the held version is a draft: set aside beside it, the held version back in the file; with none held, the default file\'s draft leaves local mode, a named one stops the start', async () => {
    const { home, hubKey, hubPub } = homeWithKey();
    const file = path.join(home, 'team-roster.json');
    const draftFile = path.join(home, 'team-roster.draft.json');
    const v1 = rosterFileText(signRoster(draft(1, [[hubPub, 'admin']]), hubKey));
    fs.writeFileSync(file, v1);
    await (await open(home, 'team-roster.json')).t.close();
    const v2 = rosterFileText(draft(2, [[hubPub, 'admin'], [formatPublicKey(Buffer.alloc(32, 7)), 'member']]));
    fs.writeFileSync(file, v2);
    const logger = createMemoryLogger();
    const hub = await openHub({ home, logger, config: { trust: { rosterPath: 'team-roster.json' } } });
    expect(hub.trust).toMatchObject({ mode: 'roster', version: 1, members: 1 });
    await hub.close();
    expect(logger.records.filter((r) => r.level === 'warn').map((r) => r.msg)).toEqual([`the roster file held an unsigned draft (v2), never in force: moved it to ${draftFile}`]);
    expect(fs.readFileSync(file, 'utf8')).toBe(v1);
    expect(fs.readFileSync(draftFile, 'utf8')).toBe(v2);
    // A draft already there wins: the file's is left as it is, and not used.
    fs.writeFileSync(file, v2);
    const again = await open(home, 'team-roster.json');
    expect(again.t.hub.trust).toMatchObject({ version: 1 });
    await again.t.close();
    expect(fs.readFileSync(file, 'utf8')).toBe(v2);
    expect(fs.readFileSync(draftFile, 'utf8')).toBe(v2);

    // No roster held: the default file's draft is set aside and the hub runs in local mode, as before the draft.
    const fresh = homeWithKey();
    const unsigned = rosterFileText(draft(1, [[fresh.hubPub, 'admin']]));
    fs.writeFileSync(path.join(fresh.home, 'roster.json'), unsigned);
    const local = await open(fresh.home);
    expect(local.t.hub.trust.mode).toBe('local');
    await local.t.close();
    expect(fs.existsSync(path.join(fresh.home, 'roster.json'))).toBe(false);
    expect(fs.readFileSync(path.join(fresh.home, 'roster.draft.json'), 'utf8')).toBe(unsigned);
    // A named file that holds only a draft: the operator asked for a roster, so the start stops.
    fs.writeFileSync(path.join(fresh.home, 'named.json'), unsigned);
    expect(await caught(() => openHub({ home: fresh.home, logger: createMemoryLogger(), config: { trust: { rosterPath: 'named.json' } } }))).toMatchObject({ code: 'ROSTER_INVALID', field: 'signatures' });
  });

  it('roster start - with no stored roster, a named file that cannot be accepted stops the start (not a silent local mode); the default file missing is local mode', async () => {
    const { home, hubKey, hubPub } = homeWithKey();
    const stranger = ensureKeyFile(path.join(home, 'other.key')).privateKey;
    const file = path.join(home, 'r.json');
    fs.writeFileSync(file, rosterFileText(signRoster(draft(1, [[hubPub, 'admin']]), stranger)));
    expect(await caught(() => openHub({ home, logger: createMemoryLogger(), config: { trust: { rosterPath: file } } }))).toMatchObject({ code: 'ROSTER_INVALID', field: 'signatures.0' });
    expect(await caught(() => openHub({ home, logger: createMemoryLogger(), config: { trust: { rosterPath: path.join(home, 'missing.json') } } }))).toMatchObject({ code: 'ROSTER_INVALID' });
    const opened = await open(home);
    expect(opened.t.hub.trust.mode).toBe('local');
    await opened.t.close();
    // The default file, once there, is loaded.
    fs.writeFileSync(path.join(home, 'roster.json'), rosterFileText(signRoster(draft(1, [[hubPub, 'admin']]), hubKey)));
    const again = await open(home);
    expect(again.t.hub.trust).toMatchObject({ mode: 'roster', version: 1 });
    await again.t.close();
  });

  it('roster in force at - the version signed at or before a time is the one in force then; none before the first (local mode)', async () => {
    const s = await setup();
    await s.t.hub.acceptRoster(signRoster(draft(1, [[s.hubPub, 'admin'], [s.pub(s.boss), 'admin'], [s.pub(s.coder), 'member']]), s.hubKey));
    await s.t.hub.acceptRoster(signRoster(draft(2, [[s.hubPub, 'admin'], [s.pub(s.boss), 'admin']]), s.hubKey));
    const { rosters } = s.t.hub.internals.ctx;
    expect(rosters.inForceAt(Date.parse('2026-11-24T12:00:00Z'))).toBeUndefined();
    expect(rosters.inForceAt(Date.parse('2026-11-24T12:00:01Z'))?.version).toBe(1);
    expect(rosters.inForceAt(Date.parse('2026-11-24T12:00:01.999Z'))?.version).toBe(1);
    expect(rosters.inForceAt(Date.parse('2026-11-24T12:00:02Z'))?.version).toBe(2);
    expect(rosters.inForceAt(Date.parse('2026-11-28T00:00:00Z'))?.members.some((m) => m.pubkey === s.pub(s.coder))).toBe(false);
  });
});
