import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/hub/actor.js';
import type { RosterView } from '../../src/hub/access-resolver.js';
import type { ParticipantApi } from '../../src/hub/participant-api.js';
import { PARTICIPANT_ENTRIES } from '../../src/hub/entries.js';
import { PERMISSIONS, type Action } from '../../src/hub/permissions.js';
import { ACCESS_LEVELS, accessAtLeast, type Access } from '../../src/schema/access.js';
import { caught, openTestHub, type TestHub } from '../helpers/hub.js';
import { connectInMemory } from '../helpers/mcp.js';
import { ENTRY_CALLS } from './entry-calls.js';

/** Permission roles through the in-process Actor: the one place every surface's calls are checked. */
let t: TestHub | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** The action each ParticipantApi method performs, from the gate's table (an entry open to anyone counts as whoami's, the least). */
const API_ACTIONS = Object.fromEntries(
  Object.entries(PARTICIPANT_ENTRIES).map(([method, entry]) => [method, entry.action === 'open' ? 'whoami' : entry.action]),
) as Record<keyof ParticipantApi, Action>;

/**
 * One call of every ParticipantApi method: the gate tests' calls (entry-calls.ts), but a
 * rename that gives a fresh name each time, so that every call by a permitted role writes.
 */
const CALLS: Record<keyof ParticipantApi, (a: Actor, n: number) => Promise<unknown>> = {
  ...(Object.fromEntries(
    (Object.keys(PARTICIPANT_ENTRIES) as Array<keyof ParticipantApi>).map((method) => [method, async (a: Actor, n: number) => ENTRY_CALLS[method](a, n, t!)]),
  ) as Record<keyof ParticipantApi, (a: Actor, n: number) => Promise<unknown>>),
  renameThread: (a, n) => a.renameThread({ thread: 'general', name: `general-${n}` }),
};

/** One agent of each access (set by trust.access), and a human (admin in local mode). */
async function roles(extra: Record<string, unknown> = {}): Promise<{ actors: Record<Access, Actor>; boss: Actor; events: () => number }> {
  t = await openTestHub({ config: { trust: { access: { watcher: 'observer', writer: 'member', asker: 'operator', chief: 'admin' } }, ...extra } });
  const hub = t.hub;
  const boss = await hub.join({ handle: 'boss', session: 's', profile: { kind: 'human' } });
  const actors = {
    observer: await hub.join({ handle: 'watcher', session: 's' }),
    member: await hub.join({ handle: 'writer', session: 's' }),
    operator: await hub.join({ handle: 'asker', session: 's' }),
    admin: await hub.join({ handle: 'chief', session: 's' }),
  };
  return { actors, boss, events: () => hub.stats().events };
}

describe('permission table', () => {
  it('permissions - every ParticipantApi method has an action in the table, and every action a level', () => {
    const source = fs.readFileSync(path.join(import.meta.dirname, '../../src/hub/participant-api.ts'), 'utf8');
    const body = source.slice(source.indexOf('export interface ParticipantApi'));
    const methods = [...body.matchAll(/^ {2}(\w+)\(/gm)].map((m) => m[1]!);
    expect(methods.length).toBeGreaterThan(30);
    expect(Object.keys(API_ACTIONS).sort()).toEqual([...methods].sort());
    for (const [method, action] of Object.entries(API_ACTIONS)) expect(ACCESS_LEVELS, method).toContain(PERMISSIONS[action]);
  });

  it('permissions - Meerkat\'s table: reading is an observer\'s, writing a member\'s, requests an operator\'s, steering an admin\'s', () => {
    const need = (method: keyof ParticipantApi): Access => PERMISSIONS[API_ACTIONS[method]];
    for (const m of ['threads', 'history', 'readNew', 'search', 'inbox', 'peek', 'wait', 'who', 'meetings', 'meetingHear', 'meetingWho', 'meetingStatus'] as const) expect(need(m), m).toBe('observer');
    for (const m of ['post', 'dm', 'createChannel', 'renameThread', 'openSide', 'closeSide', 'subscribe', 'unsubscribe', 'mute', 'ack', 'inject', 'respond', 'setPresence', 'meetingJoin', 'meetingSay', 'meetingLeave', 'updateProfile'] as const) expect(need(m), m).toBe('member');
    expect(need('request')).toBe('operator');
    expect(need('control')).toBe('admin');
    expect(PERMISSIONS.export).toBe('observer');
    expect(PERMISSIONS.access_set).toBe('admin');
  });
});

describe('roles through the Actor', () => {
  it('roles - {observer, member, operator, admin} × every ParticipantApi method: refused with FORBIDDEN_ROLE below the level, nothing stored; never refused for access at or above it', async () => {
    const { actors, events } = await roles();
    let n = 0;
    for (const access of ACCESS_LEVELS) {
      for (const [method, call] of Object.entries(CALLS) as Array<[keyof ParticipantApi, (a: Actor, n: number) => Promise<unknown>]>) {
        const need = PERMISSIONS[API_ACTIONS[method]];
        const before = events();
        let code: string | undefined;
        let error: { message?: string; details?: unknown } | undefined;
        try {
          await call(actors[access], ++n);
        } catch (thrown) {
          error = thrown as { message?: string; details?: unknown };
          code = (thrown as { code?: string }).code;
        }
        if (accessAtLeast(access, need)) {
          expect(code, `${access} ${method}: ${error?.message}`).not.toBe('FORBIDDEN_ROLE');
        } else {
          expect(code, `${access} ${method}`).toBe('FORBIDDEN_ROLE');
          expect(error?.details, `${access} ${method}`).toMatchObject({ need, have: access });
          expect(error?.message, `${access} ${method}`).toMatch(new RegExp(`needs ${need}; you \\(@\\w+\\) are ${access}; nothing was done\\. An admin \\(@boss or @chief\\) can grant it: parley roster set-role @\\w+ ${need}`));
          expect(events(), `${access} ${method} stored nothing`).toBe(before);
        }
      }
    }
  });

  it('roles - a member\'s request_send is refused; an observer\'s post is refused and nothing is stored; an agent\'s pause is refused', async () => {
    const { actors, boss, events } = await roles();
    const before = events();
    const request = await caught(() => actors.member.request({ to: 'boss', intent: 'approve-deploy' }));
    expect(request).toMatchObject({ code: 'FORBIDDEN_ROLE', message: expect.stringContaining('request_send needs operator; you (@writer) are member') });
    const post = await caught(() => actors.observer.post({ thread: 'general', text: 'can I speak?' }));
    expect(post).toMatchObject({ code: 'FORBIDDEN_ROLE', message: expect.stringContaining('post needs member; you (@watcher) are observer') });
    expect(events()).toBe(before);
    expect((await boss.history({ thread: 'general' })).events.map((e) => e.content)).not.toContain('can I speak?');
    // An agent in local mode, with nothing configured for it: an operator, who may not pause.
    const agent = await t!.hub.join({ handle: 'plain-agent', session: 's' });
    expect(await caught(() => agent.pause('general'))).toMatchObject({ code: 'FORBIDDEN_ROLE', message: expect.stringContaining('pause needs admin; you (@plain-agent) are operator') });
    expect((await boss.threadDetail('general')).controls.paused).toBe(false);
    expect(events()).toBe(before);
  });

  it('roles - in local mode an agent (operator) can still put a blocking question to a human with request_send', async () => {
    t = await openTestHub();
    const human = await t.hub.join({ handle: 'human', session: 's', profile: { kind: 'human' } });
    const agent = await t.hub.join({ handle: 'coder', session: 's' });
    expect((await agent.whoami()).access).toBe('operator');
    expect((await human.whoami())).toMatchObject({ access: 'admin', trust: { mode: 'local', localAccess: { human: 'admin', agent: 'operator' } } });
    const sent = await agent.request({ to: 'human', intent: 'approve-plan' });
    expect((await human.openRequests()).incoming.map((r) => r.request_id)).toContain(sent.request_id);
  });

  it('roles - resolution in local mode: an admin\'s stored override, then trust.access by handle (any case), then trust.localAccess by kind', async () => {
    t = await openTestHub({ config: { trust: { localAccess: { human: 'member', agent: 'observer' }, access: { Named: 'operator' } } } });
    const hub = t.hub;
    const human = await hub.join({ handle: 'human', session: 's', profile: { kind: 'human' } });
    const agent = await hub.join({ handle: 'agent', session: 's' });
    const named = await hub.join({ handle: 'named', session: 's' });
    expect([(await human.whoami()).access, (await agent.whoami()).access, (await named.whoami()).access]).toEqual(['member', 'observer', 'operator']);
    expect((await agent.participants()).map((p) => [p.handle, p.access])).toEqual(expect.arrayContaining([['human', 'member'], ['named', 'operator']]));
    await hub.setAccess('named', 'observer');
    await hub.setAccess('agent', 'admin');
    expect([(await named.whoami()).access, (await agent.whoami()).access]).toEqual(['observer', 'admin']);
    // The override is stored: a hub opened again on the same home keeps it.
    const home = t.home;
    await hub.close();
    const again = await openTestHub({ home, config: { trust: { localAccess: { human: 'member', agent: 'observer' }, access: { Named: 'operator' } } } });
    try {
      expect((await again.hub.actor('named', 's').whoami()).access).toBe('observer');
      expect((await again.hub.actor('agent', 's').whoami()).access).toBe('admin');
    } finally {
      await again.close();
      // The first hub is closed already; closing it again removes the home both used.
      await t.close();
      t = undefined;
    }
  });

  it('roles - a role change takes effect on the next call; only an admin may change one, and a bad access names the field', async () => {
    const { actors, boss, events } = await roles();
    expect((await caught(() => actors.operator.pause('general'))).code).toBe('FORBIDDEN_ROLE');
    const refused = await caught(() => actors.operator.setAccess('asker', 'admin'));
    expect(refused).toMatchObject({ code: 'FORBIDDEN_ROLE', message: expect.stringContaining('access_set needs admin') });
    expect((await actors.operator.whoami()).access).toBe('operator');
    expect(await caught(() => boss.setAccess('asker', 'superuser' as Access))).toMatchObject({ code: 'INVALID_INPUT', field: 'access' });
    expect(await caught(() => boss.setAccess('nobody', 'admin'))).toMatchObject({ code: 'NOT_FOUND', field: 'handle' });
    await boss.setAccess('asker', 'admin');
    await expect(actors.operator.pause('general')).resolves.toMatchObject({ control: 'pause' });
    await actors.admin.setAccess('asker', 'member');
    const before = events();
    expect((await caught(() => actors.operator.request({ to: 'boss', intent: 'x' }))).code).toBe('FORBIDDEN_ROLE');
    expect(events()).toBe(before);
  });

  it('roles - an admin steers regardless of pause and mute; a non-admin cannot steer at all', async () => {
    const { actors, boss } = await roles();
    await boss.hardMute('general', ['chief']);
    await boss.pause('general');
    await expect(actors.admin.prod('general', ['writer'])).resolves.toMatchObject({ control: 'prod' });
    await expect(actors.admin.resume('general')).resolves.toMatchObject({ control: 'pause' });
    for (const access of ['observer', 'member', 'operator'] as const) {
      expect((await caught(() => actors[access].done('general'))).code, access).toBe('FORBIDDEN_ROLE');
    }
  });

  it('roles - with a roster, access is the member\'s by public key; a participant outside it is refused with NOT_IN_ROSTER and told whom to ask', async () => {
    const members = new Map<string, Access>();
    const roster: RosterView = {
      orgId: 'acme',
      version: 3,
      accessOf: (key) => members.get(key.toString('base64')),
      admins: () => [...members].filter(([, access]) => access === 'admin').map(([key]) => Buffer.from(key, 'base64')),
      isArchive: () => false,
    };
    t = await openTestHub({ roster });
    const boss = await t.hub.join({ handle: 'boss', session: 's', profile: { kind: 'human' } });
    const writer = await t.hub.join({ handle: 'writer', session: 's' });
    const stranger = await t.hub.join({ handle: 'stranger', session: 's' });
    members.set(boss.participant.publicKey, 'admin');
    members.set(writer.participant.publicKey, 'member');
    // Kind does not matter with a roster: the agent is a member, the human an admin.
    expect(await writer.whoami()).toMatchObject({ access: 'member', trust: { mode: 'roster', org: 'acme', version: 3 } });
    await expect(writer.post({ thread: 'general', text: 'in the roster' })).resolves.toMatchObject({ seq: expect.any(Number) });
    expect((await caught(() => writer.request({ to: 'boss', intent: 'x' }))).code).toBe('FORBIDDEN_ROLE');
    const before = t.hub.stats().events;
    const outside = await caught(() => stranger.post({ thread: 'general', text: 'let me in' }));
    const key = Buffer.from(stranger.participant.publicKey, 'base64').toString('base64url');
    expect(outside).toMatchObject({
      code: 'NOT_IN_ROSTER',
      message: `Your key (@stranger, ed25519:${key}) is not in roster acme v3; nothing was done. Ask @boss to add it: parley roster add ed25519:${key} --role member`,
    });
    expect(t.hub.stats().events).toBe(before);
    // whoami still answers, so the stranger learns which key to have added.
    expect(await stranger.whoami()).toMatchObject({ access: null, trust: { mode: 'roster' } });
    // Over MCP the stranger is listed only whoami and the rooms; any other tool answers NOT_IN_ROSTER.
    const mcp = await connectInMemory(t.hub, 'stranger', 's', 'all');
    try {
      expect((await mcp.toolNames()).sort()).toEqual(['room_load', 'room_unload', 'rooms_find', 'rooms_list', 'whoami']);
      expect((await mcp.call('whoami')).value).toMatchObject({ access: null, trust: { mode: 'roster', org: 'acme' } });
      expect((await mcp.call('chat_post', { text: 'let me in' })).text).toMatch(/^NOT_IN_ROSTER: Your key \(@stranger/);
      expect(mcp.client.getInstructions()).toContain('not in this hub\'s roster');
    } finally {
      await mcp.close();
    }
    // Local-mode overrides do not apply under a roster.
    expect(await caught(() => t!.hub.setAccess('stranger', 'admin'))).toMatchObject({ code: 'FORBIDDEN', field: 'access' });
  });
});
