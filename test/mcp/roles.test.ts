import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_LEVELS, type Access } from '../../src/schema/access.js';
import { tempHome } from '../helpers/hub.js';
import { connectHttp, type McpTestClient } from '../helpers/mcp.js';
import { mcpOnHub } from '../helpers/mcp-fixtures.js';
import { cliAt, joinOver, restCall, startServe, stopHubs, type RunningHub } from '../helpers/serve.js';
import { fileSnapshot } from '../helpers/store-snapshot.js';

/** Permission roles through MCP (the tool list and calls), REST and the CLI. */
const HANDLES: Record<Access, string> = { observer: 'watcher', member: 'writer', operator: 'asker', admin: 'chief' };
const TRUST = { access: Object.fromEntries(ACCESS_LEVELS.map((a) => [HANDLES[a], a])) };

/** What each access is listed, and what it is not (with every room and the compat names on offer). */
const LISTED: Record<Access, { has: string[]; hasNot: string[] }> = {
  observer: { has: ['whoami', 'inbox', 'wait', 'who', 'chat_read', 'chat_history', 'chat_search', 'chat_threads', 'meeting_hear', 'requests_open'], hasNot: ['chat_post', 'chat_dm', 'side_open', 'inbox_ack', 'presence_set', 'request_respond', 'request_send', 'send_request', 'send_message', 'steer_pause'] },
  member: { has: ['chat_post', 'chat_dm', 'side_open', 'side_close', 'inbox_ack', 'presence_set', 'request_respond', 'meeting_say', 'send_message'], hasNot: ['request_send', 'send_request', 'steer_pause', 'steer_mute', 'steer_policy'] },
  operator: { has: ['request_send', 'send_request', 'chat_post'], hasNot: ['steer_pause', 'steer_resume', 'steer_mute', 'steer_unmute', 'steer_prod', 'steer_invite', 'steer_done', 'steer_policy'] },
  admin: { has: ['steer_pause', 'steer_resume', 'steer_mute', 'steer_unmute', 'steer_prod', 'steer_invite', 'steer_done', 'steer_policy', 'request_send', 'chat_post'], hasNot: [] },
};

/** A tool each access may not call, with arguments that would otherwise work, and what the refusal says. */
const HIDDEN: Array<[Access, string, Record<string, unknown>, string]> = [
  ['observer', 'chat_post', { text: 'may I?' }, 'post needs member; you (@watcher) are observer'],
  ['member', 'request_send', { to: 'boss', intent: 'approve' }, 'request_send needs operator; you (@writer) are member'],
  ['member', 'send_request', { target: '@boss', intent: 'approve' }, 'request_send needs operator; you (@writer) are member'],
  ['operator', 'steer_pause', { thread: 'general' }, 'pause needs admin; you (@asker) are operator'],
];

describe('roles over MCP (in memory, the official SDK client)', () => {
  const mcp = mcpOnHub();

  async function connectAll(): Promise<Record<Access, McpTestClient>> {
    const hub = await mcp.open({ config: { mcp: { compat: true }, trust: TRUST } });
    await hub.join({ handle: 'boss', session: 's', profile: { kind: 'human' } });
    const out = {} as Record<Access, McpTestClient>;
    for (const access of ACCESS_LEVELS) {
      await hub.join({ handle: HANDLES[access], session: 's' });
      out[access] = await mcp.connect(HANDLES[access], 's', 'all');
    }
    return out;
  }

  it('mcp roles - tools/list shows each access only its tools; the steer room is an admin\'s alone', async () => {
    const connected = await connectAll();
    for (const access of ACCESS_LEVELS) {
      const names = await connected[access].toolNames();
      expect(names, access).toEqual(expect.arrayContaining(LISTED[access].has));
      for (const hidden of LISTED[access].hasNot) expect(names, `${access} lists ${hidden}`).not.toContain(hidden);
      const rooms = ((await connected[access].call('rooms_list')).value.rooms as Array<{ id: string }>).map((r) => r.id);
      expect(rooms.includes('steer'), access).toBe(access === 'admin');
      expect((await connected[access].call('whoami')).value).toMatchObject({ access, trust: { mode: 'local' } });
      expect(connected[access].client.getInstructions()).toContain(`Your access is ${access}`);
    }
  });

  it('mcp roles - calling a tool the caller\'s access hides answers FORBIDDEN_ROLE (not "unknown tool"), and stores nothing', async () => {
    const connected = await connectAll();
    const before = mcp.hub.stats().events;
    for (const [access, tool, args, says] of HIDDEN) {
      const answer = await connected[access].call(tool, args);
      expect(answer.isError, `${access} ${tool}`).toBe(true);
      expect(answer.text, `${access} ${tool}`).toMatch(new RegExp(`^FORBIDDEN_ROLE: ${says.replace(/[()@]/g, '\\$&')}`));
    }
    expect(mcp.hub.stats().events).toBe(before);
  });

  it('mcp roles - a role change takes effect live: the connection rebuilds its tools and sends tools/list_changed', async () => {
    const connected = await connectAll();
    const asker = connected.operator;
    expect(await asker.toolNames()).not.toContain('steer_pause');
    await mcp.hub.setAccess('asker', 'admin');
    await expect.poll(() => asker.listChanged()).toBe(1);
    // The steer room is now there to load (rooms the connection had stay as they were).
    expect(((await asker.call('rooms_list')).value.rooms as Array<{ id: string }>).map((r) => r.id)).toContain('steer');
    expect((await asker.call('room_load', { room: 'steer' })).value).toMatchObject({ loaded: ['steer'] });
    expect(await asker.toolNames()).toContain('steer_pause');
    expect((await asker.call('steer_pause', { thread: 'general' })).value).toMatchObject({ control: 'pause' });
    // Down to observer: writing tools go, and a call of one is refused.
    await mcp.hub.setAccess('asker', 'observer');
    await expect.poll(() => asker.listChanged()).toBe(3);
    expect(await asker.toolNames()).not.toContain('chat_post');
    expect((await asker.call('chat_post', { text: 'still here?' })).text).toMatch(/^FORBIDDEN_ROLE: post needs member/);
    // Others' connections are not told: their tools did not change.
    expect(connected.member.listChanged()).toBe(0);
  });
});

describe('roles over REST, Streamable HTTP MCP and the CLI (a real hub)', () => {
  let hub: RunningHub;
  let home: string;
  let cleanup: () => void = () => undefined;
  const tokens = {} as Record<Access | 'boss', string>;

  beforeAll(async () => {
    ({ home, cleanup } = tempHome());
    fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ trust: TRUST }));
    hub = await startServe(home);
    tokens.boss = await joinOver(hub, { handle: 'boss', session: 'proj', profile: { kind: 'human' } });
    for (const access of ACCESS_LEVELS) tokens[access] = await joinOver(hub, { handle: HANDLES[access], session: 'proj' });
  }, 30_000);

  afterAll(async () => {
    await stopHubs();
    cleanup();
  });

  /** One REST call per level of the table: [what, the least access, method, route, body]. */
  const CALLS: Array<[string, Access, string, string, unknown?]> = [
    ['read threads', 'observer', 'GET', '/threads'],
    ['read history', 'observer', 'GET', '/threads/general/history'],
    ['presence get', 'observer', 'GET', '/presence'],
    ['post', 'member', 'POST', '/threads/general/messages', { text: 'hello' }],
    ['presence', 'member', 'PUT', '/presence', { state: 'thinking' }],
    ['request_send', 'operator', 'POST', '/requests', { to: 'boss', intent: 'approve' }],
    ['pause', 'admin', 'POST', '/threads/general/controls', { pause: { on: true } }],
    ['resume', 'admin', 'POST', '/threads/general/controls', { pause: { on: false } }],
    ['set access', 'admin', 'PUT', '/participants/writer/access', { access: 'member' }],
  ];

  it('rest roles - {observer, member, operator, admin} × one route per level: 403 FORBIDDEN_ROLE below it with nothing stored, 2xx at or above it', async () => {
    for (const access of ACCESS_LEVELS) {
      for (const [what, need, method, route, body] of CALLS) {
        const allowed = ACCESS_LEVELS.indexOf(access) >= ACCESS_LEVELS.indexOf(need);
        const before = allowed ? undefined : fileSnapshot(path.join(home, 'parley.db'));
        const answer = await restCall(hub, tokens[access], method, route, body);
        if (allowed) {
          expect(answer.status, `${access} ${what}: ${JSON.stringify(answer.json)}`).toBeLessThan(300);
        } else {
          expect(answer.status, `${access} ${what}`).toBe(403);
          expect(answer.json.error, `${access} ${what}`).toMatchObject({ code: 'FORBIDDEN_ROLE', details: { need, have: access } });
          expect(fileSnapshot(path.join(home, 'parley.db')), `${access} ${what} stored nothing`).toEqual(before);
        }
      }
    }
    const who = await restCall(hub, tokens.observer, 'GET', '/whoami');
    expect(who.json).toMatchObject({ access: 'observer', trust: { mode: 'local', localAccess: { human: 'admin', agent: 'operator' } } });
  });

  it('rest roles - setting access names the bad field, takes the admin token or an admin participant, and reaches a live MCP connection over Streamable HTTP', async () => {
    const bad = await restCall(hub, tokens.boss, 'PUT', '/participants/writer/access', { access: 'root' });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'INVALID_INPUT', field: 'access' });
    const unknown = await restCall(hub, tokens.boss, 'PUT', '/participants/nobody/access', { access: 'member' });
    expect(unknown.json.error).toMatchObject({ code: 'NOT_FOUND', field: 'handle' });
    const writer = await connectHttp(hub.url, tokens.member);
    try {
      expect(await writer.toolNames()).not.toContain('request_send');
      await writer.call('room_load', { room: 'requests' });
      // Over Streamable HTTP the room_load's own tools/list_changed comes on the stream and may
      // arrive after the call's answer: count from after it, or the access change's is miscounted.
      await expect.poll(() => writer.listChanged()).toBe(1);
      const loads = writer.listChanged();
      const res = await fetch(`${hub.url}/api/v1/participants/writer/access`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${hub.adminToken()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ access: 'operator' }),
      });
      expect(res.status).toBe(200);
      await expect.poll(() => writer.listChanged()).toBe(loads + 1);
      expect(await writer.toolNames()).toContain('request_send');
      expect((await writer.call('request_send', { to: 'boss', intent: 'approve' })).isError).toBe(false);
    } finally {
      await writer.close();
      await restCall(hub, tokens.boss, 'PUT', '/participants/writer/access', { access: 'member' });
    }
  });

  it('cli roles - "parley request" as a member fails with exit 1 and says what it needs and who can grant it; nothing is stored', async () => {
    const cli = cliAt(home, hub.url);
    expect(cli('join', 'cli-writer', '--session', 'proj').status).toBe(0);
    // cli-writer is an agent (an operator) until an admin makes it a member.
    expect((await restCall(hub, tokens.boss, 'PUT', '/participants/cli-writer/access', { access: 'member' })).status).toBe(200);
    const before = fileSnapshot(path.join(home, 'parley.db'));
    const run = cli('request', 'boss', 'approve-deploy', '--as', 'cli-writer', '--session', 'proj');
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('request_send needs operator; you (@cli-writer) are member');
    expect(run.stderr).toContain('can grant it: parley roster set-role @cli-writer operator');
    expect(fileSnapshot(path.join(home, 'parley.db'))).toEqual(before);
  });
});
