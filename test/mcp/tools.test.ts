import path from 'node:path';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { parseConfig } from '../../src/config/load.js';
import { registryFor } from '../../src/tools/index.js';
import { connectInMemory, wrap, type McpTestClient } from '../helpers/mcp.js';
import { openTestHub, tempHome, type TestHub } from '../helpers/hub.js';
import { BIN, childEnv, joinOver, startServe, stopHubs } from '../helpers/serve.js';

/**
 * Every tool of every room, called through the official SDK client over each
 * transport (in memory, Streamable HTTP, stdio): one call
 * that works and one that is refused with the reason and the fix. The list of
 * tools comes from the registry, so a new tool without a case fails here.
 */
let t: TestHub | undefined;
const clients: McpTestClient[] = [];
const cleanups: Array<() => void> = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  await t?.close();
  t = undefined;
  await stopHubs();
  for (const cleanup of cleanups.splice(0)) cleanup();
});


/** The tools a connection with every room and the compat names has. */
function everyToolName(): Set<string> {
  const config = parseConfig({ mcp: { compat: true } });
  const agent = { id: 'p_x', handle: 'coder', profile: { kind: 'agent' as const, roles: [] }, publicKey: '', createdAt: '' };
  return new Set([...registryFor(config, agent).rooms()].flatMap((room) => [...room.tools.keys()]));
}

/**
 * Calls every tool twice, as three participants of a fresh hub whose config
 * has mcp.compat on and requests.maxHop 1: once so that it works, once so
 * that it is refused with the field or the rule named.
 */
async function exerciseEveryTool(coder: McpTestClient, reviewer: McpTestClient, human: McpTestClient): Promise<void> {
  const state: Record<string, string> = {};
  const ok = (name: string, args: Record<string, unknown> = {}, who: McpTestClient = coder) =>
    who.call(name, args).then((r) => {
      expect(r.isError, `${name} ${JSON.stringify(args)} → ${r.text}`).toBe(false);
      return r.value;
    });
  const refused = (name: string, args: Record<string, unknown>, pattern: RegExp, who: McpTestClient = coder) =>
    who.call(name, args).then((r) => {
      expect(r.isError, `${name} ${JSON.stringify(args)} should be refused`).toBe(true);
      expect(r.text, name).toMatch(pattern);
    });

  const posted = await ok('chat_post', { text: 'plan: cache layer first, @reviewer' });
  state.message = posted.id as string;
  const cases: Record<string, { ok: () => Promise<void>; bad: () => Promise<void> }> = {
    whoami: { ok: async () => expect(await ok('whoami')).toMatchObject({ handle: 'coder', session: 'proj' }), bad: () => refused('whoami', { handle: 'human' }, /Invalid handle: unknown field/) },
    rooms_list: { ok: async () => expect((await ok('rooms_list')).rooms).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'steer', parent: 'chat' })])), bad: () => refused('rooms_list', { x: 1 }, /INVALID_INPUT/) },
    rooms_find: { ok: async () => expect(((await ok('rooms_find', { need: 'pause an agent' })).rooms as Array<{ id: string }>)[0]?.id).toBe('steer'), bad: () => refused('rooms_find', { need: '' }, /Invalid need/) },
    room_load: { ok: async () => expect(await ok('room_load', { room: 'meeting' })).toMatchObject({ loaded: [] }), bad: () => refused('room_load', { room: 'nope' }, /NOT_FOUND: No room "nope"/) },
    room_unload: {
      ok: async () => {
        expect(await ok('room_unload', { room: 'presence' })).toMatchObject({ unloaded: ['presence'], tools: ['presence_set'] });
        expect(await ok('room_load', { room: 'presence' })).toMatchObject({ loaded: ['presence'], tools: ['presence_set'] });
      }, bad: () => refused('room_unload', { room: 'global' }, /always loaded/) },
    inbox: { ok: async () => expect(((await ok('inbox', {}, reviewer)).items as unknown[]).length).toBeGreaterThan(0), bad: () => refused('inbox', { limit: 0 }, /Invalid limit/) },
    inbox_ack: {
      ok: async () => {
        const dm = await ok('chat_dm', { to: 'reviewer', text: 'ack this' });
        await ok('inbox', {}, reviewer);
        expect(await ok('inbox_ack', { ids: [dm.id] }, reviewer)).toMatchObject({ acknowledged: 1 });
      },
      bad: () => refused('inbox_ack', { ids: ['not-an-id'] }, /Invalid ids.0/),
    },
    wait: { ok: async () => expect(await ok('wait', { timeout_ms: 10 })).toMatchObject({ timedOut: expect.any(Boolean) }), bad: () => refused('wait', { timeout_ms: -1 }, /Invalid timeout_ms/) },
    who: { ok: async () => expect(((await ok('who')).participants as Array<{ handle: string }>).map((p) => p.handle)).toContain('reviewer'), bad: () => refused('who', { all: true }, /unknown field/) },
    chat_post: { ok: async () => expect(await ok('chat_post', { text: 'another' })).toMatchObject({ seq: expect.any(Number) }), bad: () => refused('chat_post', { text: '' }, /Invalid text/) },
    chat_read: {
      ok: async () => {
        const read = await ok('chat_read', {}, reviewer);
        // The inbox already took the first post; what came after it is new.
        expect((read.messages as Array<{ text: string }>).map((m) => m.text)).toEqual(['another']);
        expect(read.newPointer).toEqual(expect.any(Number));
      },
      bad: () => refused('chat_read', { thread: 'nowhere' }, /NOT_FOUND/),
    },
    chat_history: { ok: async () => expect(((await ok('chat_history', { limit: 5 })).messages as unknown[]).length).toBeGreaterThan(0), bad: () => refused('chat_history', { before: 'x' }, /Invalid before/) },
    chat_search: { ok: async () => expect(((await ok('chat_search', { query: 'cache' })).messages as Array<{ id: string }>).map((m) => m.id)).toContain(state.message), bad: () => refused('chat_search', { query: '' }, /Invalid query/) },
    chat_threads: { ok: async () => expect(((await ok('chat_threads')).threads as Array<{ name: string }>).map((x) => x.name)).toContain('general'), bad: () => refused('chat_threads', { kind: 'dm' }, /unknown field/) },
    chat_thread_create: { ok: async () => expect(await ok('chat_thread_create', { name: 'design', members: ['reviewer'] })).toMatchObject({ name: 'design', kind: 'channel' }), bad: () => refused('chat_thread_create', { name: 'Bad Name!' }, /Invalid name/) },
    chat_dm: { ok: async () => expect(await ok('chat_dm', { to: 'human', text: 'status: green' })).toMatchObject({ thread: expect.any(String) }), bad: () => refused('chat_dm', { to: 'coder', text: 'me' }, /yourself/) },
    chat_subscribe: { ok: async () => expect(await ok('chat_subscribe', { thread: 'design' })).toMatchObject({ subscription: 'subscribed' }), bad: () => refused('chat_subscribe', { thread: 'nowhere' }, /NOT_FOUND/) },
    chat_unsubscribe: { ok: async () => expect(await ok('chat_unsubscribe', { thread: 'design' })).toMatchObject({ subscription: 'unsubscribed' }), bad: () => refused('chat_unsubscribe', {}, /Invalid thread/) },
    chat_mute: { ok: async () => expect(await ok('chat_mute', { thread: 'design' })).toMatchObject({ subscription: 'muted' }), bad: () => refused('chat_mute', { thread: '' }, /Invalid thread/) },
    chat_unmute: { ok: async () => expect(await ok('chat_unmute', { thread: 'design' })).toMatchObject({ subscription: 'subscribed' }), bad: () => refused('chat_unmute', { thread: 'nowhere' }, /NOT_FOUND/) },
    meeting_join: { ok: async () => expect(await ok('meeting_join', { meeting: 'standup' })).toMatchObject({ who: ['coder'] }), bad: () => refused('meeting_join', { meeting: '' }, /Invalid meeting/) },
    meeting_say: { ok: async () => expect(await ok('meeting_say', { meeting: 'standup', text: 'draft is up' })).toMatchObject({ number: 1 }), bad: () => refused('meeting_say', { meeting: 'standup' }, /Invalid text/) },
    meeting_hear: {
      ok: async () => expect(await ok('meeting_hear', { meeting: 'standup', last_heard: 0 }, reviewer)).toMatchObject({ messages: [expect.objectContaining({ number: 1, speaker: 'coder', text: 'draft is up' })], messages_lost: false, last_heard: 1 }),
      bad: () => refused('meeting_hear', { meeting: 'standup', last_heard: -1 }, /Invalid last_heard/),
    },
    meeting_who: { ok: async () => expect(await ok('meeting_who', { meeting: 'standup' })).toMatchObject({ who: [expect.objectContaining({ handle: 'coder' })] }), bad: () => refused('meeting_who', {}, /Invalid meeting/) },
    meeting_status: { ok: async () => expect(await ok('meeting_status', { meeting: 'standup' })).toMatchObject({ latest: 1 }), bad: () => refused('meeting_status', { meeting: 'standup', last_heard: 'x' }, /Invalid last_heard/) },
    meeting_list: { ok: async () => expect((await ok('meeting_list')).meetings).toEqual([expect.objectContaining({ name: 'standup' })]), bad: () => refused('meeting_list', { all: 1 }, /unknown field/) },
    meeting_leave: { ok: async () => expect(await ok('meeting_leave', { meeting: 'standup' })).toMatchObject({ left: true }), bad: () => refused('meeting_leave', { meeting: 7 }, /Invalid meeting/) },
    request_send: {
      ok: async () => {
        const sent = await ok('request_send', { to: 'reviewer', intent: 'review', params: { file: 'src/cache.ts' } });
        state.request = sent.request_id as string;
        expect(sent.hop).toBe(0);
      },
      bad: () => refused('request_send', { to: 'reviewer', intent: '' }, /Invalid intent/),
    },
    requests_open: { ok: async () => expect((await ok('requests_open', {}, reviewer)).incoming).toEqual([expect.objectContaining({ request_id: state.request, intent: 'review' })]), bad: () => refused('requests_open', { x: 1 }, /unknown field/) },
    request_respond: {
      ok: async () => expect(await ok('request_respond', { request_id: state.request, status: 'Completed', result: { approved: true } }, reviewer)).toMatchObject({ status: 'Completed' }),
      bad: () => refused('request_respond', { request_id: state.request, status: 'Completed' }, /REQUEST_CLOSED/, reviewer),
    },
    presence_set: { ok: async () => expect(await ok('presence_set', { state: 'thinking', note: 'profiling' })).toMatchObject({ applied: true }), bad: () => refused('presence_set', { state: 'sleeping' }, /Invalid state/) },
    steer_pause: { ok: async () => expect(await ok('steer_pause', { thread: 'design' })).toMatchObject({ control: 'pause', action: 'paused the thread' }), bad: () => refused('steer_pause', { thread: 'nowhere' }, /NOT_FOUND/) },
    // An operator agent may not steer at all (the tool is not even listed to it); the human, an admin, resumes.
    steer_resume: {
      ok: async () => {
        await refused('steer_resume', { thread: 'design' }, /^FORBIDDEN_ROLE: resume needs admin; you \(@reviewer\) are operator/, reviewer);
        expect(await ok('steer_resume', { thread: 'design' }, human)).toMatchObject({ control: 'pause', action: 'resumed the thread' });
      },
      bad: () => refused('steer_resume', {}, /Invalid thread/),
    },
    steer_pin: { ok: async () => expect(await ok('steer_pin', { thread: 'design' })).toMatchObject({ control: 'pin', action: 'pinned the thread' }), bad: () => refused('steer_pin', { thread: 'design', on: 'yes' }, /unknown field/) },
    steer_access: {
      ok: async () => expect(await ok('steer_access', { thread: 'design', readers: ['observer'], writers: ['member'], retention_hours: 24 })).toMatchObject({ control: 'access', action: "set the channel's access policy" }),
      bad: () => refused('steer_access', { thread: 'design', admins: ['member'] }, /control\.access\.admins\.0/),
    },
    steer_unpin: { ok: async () => expect(await ok('steer_unpin', { thread: 'design' })).toMatchObject({ control: 'pin', action: 'unpinned the thread' }), bad: () => refused('steer_unpin', {}, /Invalid thread/) },
    steer_mute: { ok: async () => expect(await ok('steer_mute', { thread: 'design', participants: ['reviewer'] })).toMatchObject({ control: 'mute', action: 'muted @reviewer' }), bad: () => refused('steer_mute', { thread: 'design', participants: [] }, /Invalid participants/) },
    steer_unmute: { ok: async () => expect(await ok('steer_unmute', { thread: 'design', participants: ['reviewer'] })).toMatchObject({ control: 'unmute', action: 'unmuted @reviewer' }), bad: () => refused('steer_unmute', { thread: 'design', participants: ['nobody'] }, /NOT_FOUND/) },
    steer_prod: { ok: async () => expect(await ok('steer_prod', { thread: 'design', participants: ['reviewer'] })).toMatchObject({ control: 'prod', action: 'prodded @reviewer' }), bad: () => refused('steer_prod', { thread: 'design' }, /Invalid participants/) },
    steer_invite: { ok: async () => expect(await ok('steer_invite', { thread: 'design', participant: 'human', profile: { roles: ['approver'] } })).toMatchObject({ control: 'invite', action: 'invited @human' }), bad: () => refused('steer_invite', { thread: 'design', participant: 'Not A Handle!' }, /Invalid participant/) },
    steer_done: { ok: async () => expect(await ok('steer_done', { thread: 'design' })).toMatchObject({ control: 'done', action: 'marked the thread done' }), bad: () => refused('steer_done', { thread: 'design', done: 'yes' }, /Invalid done/) },
    steer_policy: { ok: async () => expect((await ok('steer_policy', { thread: 'design', discussion: true, ttl_seconds: 3600 })).applied).toHaveLength(2), bad: () => refused('steer_policy', { thread: 'design' }, /at least one/) },
    side_open: {
      ok: async () => {
        const side = await ok('side_open', { title: 'eviction policy', from_event: state.message });
        state.side = side.id as string;
        expect(side).toMatchObject({ kind: 'side', parent: expect.any(String) });
      },
      bad: () => refused('side_open', { title: '' }, /Invalid title/),
    },
    side_close: { ok: async () => expect(await ok('side_close', { thread: state.side, summary: 'LRU with a size cap' })).toMatchObject({ summary_seq: expect.any(Number) }), bad: () => refused('side_close', { thread: state.side, summary: 'again' }, /THREAD_CLOSED|closed/) },
    katra_say: { ok: async () => expect(await ok('katra_say', { content: 'hello room' })).toMatchObject({ success: true, message_number: 1 }), bad: () => refused('katra_say', { text: 'x' }, /Invalid/) },
    katra_hear: {
      ok: async () => expect(await ok('katra_hear', { last_heard: 0 }, reviewer)).toMatchObject({ message_number: 1, speaker_name: 'coder', content: 'hello room', messages_lost: false }),
      bad: () => refused('katra_hear', { last_heard: 'x' }, /Invalid last_heard/),
    },
    katra_who_is_here: { ok: async () => expect((await ok('katra_who_is_here')).cis).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'coder' })])), bad: () => refused('katra_who_is_here', { x: 1 }, /unknown field/) },
    katra_meeting_status: { ok: async () => expect(await ok('katra_meeting_status', { last_heard: 0 }, reviewer)).toMatchObject({ latest_message_number: 1, unread_count: 1 }), bad: () => refused('katra_meeting_status', { last_heard: -5 }, /Invalid last_heard/) },
    send_message: {
      ok: async () => {
        expect(await ok('send_message', { target: '#general', body: 'via meerkat' })).toMatchObject({ seq: expect.any(Number) });
        expect(await ok('send_message', { target: '@reviewer', body: 'psst' })).toMatchObject({ seq: expect.any(Number) });
      },
      bad: () => refused('send_message', { target: '@nobody', body: 'x' }, /NOT_FOUND/),
    },
    send_request: { ok: async () => { const r = await ok('send_request', { target: 'reviewer', intent: 'test', params: { n: 1 } }); state.request2 = r.request_id as string; }, bad: () => refused('send_request', { target: 'reviewer' }, /Invalid intent/) },
    send_response: { ok: async () => expect(await ok('send_response', { request_id: state.request2, status: 'Rejected', result: { why: 'busy' } }, reviewer)).toMatchObject({ status: 'Rejected' }), bad: () => refused('send_response', { request_id: 'nope', status: 'Completed' }, /NOT_FOUND/, reviewer) },
    set_presence: { ok: async () => expect(await ok('set_presence', { state: 'Away' })).toMatchObject({ applied: true }), bad: () => refused('set_presence', { state: 'Sleeping' }, /Online, Away or Offline/) },
    subscribe: { ok: async () => expect(await ok('subscribe', { channel: '#design' })).toMatchObject({ subscription: 'subscribed' }), bad: () => refused('subscribe', { channel: '#nowhere' }, /NOT_FOUND/) },
    unsubscribe: { ok: async () => expect(await ok('unsubscribe', { channel: 'design' })).toMatchObject({ subscription: 'unsubscribed' }), bad: () => refused('unsubscribe', {}, /Invalid channel/) },
    mute: { ok: async () => expect(await ok('mute', { channel: 'design' })).toMatchObject({ subscription: 'muted' }), bad: () => refused('mute', { channel: '' }, /Invalid channel/) },
    unmute: { ok: async () => expect(await ok('unmute', { channel: 'design' })).toMatchObject({ subscription: 'subscribed' }), bad: () => refused('unmute', { channel: '#nowhere' }, /NOT_FOUND/) },
  };
  const allTools = everyToolName();
  expect([...allTools].filter((name) => !(name in cases))).toEqual([]);
  for (const [name, { ok: good, bad }] of Object.entries(cases)) {
    expect(allTools.has(name), `${name} is a tool`).toBe(true);
    await good();
    await bad();
  }
}

const HUB_ENV = { PARLEY_MCP_COMPAT: 'true', PARLEY_REQUESTS_MAX_HOP: '1' };

/** coder calls every tool, the steering ones too: an admin's (the in-memory hub's config says the same). */
function adminCoderHome(): string {
  const { home, cleanup } = tempHome();
  cleanups.push(cleanup);
  fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ trust: { access: { coder: 'admin' } } }));
  return home;
}

describe('mcp tools', () => {
  it('tools - each tool has a working call and a refused one, over the SDK client (in memory)', async () => {
    t = await openTestHub({ config: { mcp: { compat: true }, requests: { maxHop: 1 }, trust: { access: { coder: 'admin' } } } });
    const hub = t.hub;
    await hub.join({ handle: 'human', session: 'proj', profile: { kind: 'human' } });
    await hub.join({ handle: 'coder', session: 'proj' });
    await hub.join({ handle: 'reviewer', session: 'proj' });
    const [coder, reviewer, human] = await Promise.all(['coder', 'reviewer', 'human'].map((handle) => connectInMemory(hub, handle, 'proj', 'all')));
    clients.push(coder!, reviewer!, human!);
    await exerciseEveryTool(coder!, reviewer!, human!);
  }, 30_000);

  it('tools - the same over Streamable HTTP against a real hub', async () => {
    const home = adminCoderHome();
    const hub = await startServe(home, { env: HUB_ENV });
    const tokens: Record<string, string> = {};
    for (const [handle, kind] of [['human', 'human'], ['coder', 'agent'], ['reviewer', 'agent']] as const) {
      tokens[handle] = await joinOver(hub, { handle, session: 'proj', profile: { kind } });
    }
    const connect = async (handle: string) => {
      const transport = new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp?rooms=all`), { requestInit: { headers: { authorization: `Bearer ${tokens[handle]}` } } });
      const client = new Client({ name: `http-${handle}`, version: '1.0.0' });
      await client.connect(transport);
      const wrapped = wrap(client, () => 0, () => client.close());
      clients.push(wrapped);
      return wrapped;
    };
    await exerciseEveryTool(await connect('coder'), await connect('reviewer'), await connect('human'));
  }, 60_000);

  it('tools - the same over stdio (parley mcp) against a real hub', async () => {
    const home = adminCoderHome();
    const hub = await startServe(home, { env: HUB_ENV });
    const connect = async (handle: string, kind: string) => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp', '--as', handle, '--kind', kind, '--session', 'proj', '--rooms', 'all'],
        env: childEnv(home, { PARLEY_URL: hub.url, ...HUB_ENV }) as Record<string, string>,
        stderr: 'ignore',
      });
      const client = new Client({ name: `stdio-${handle}`, version: '1.0.0' });
      await client.connect(transport);
      const wrapped = wrap(client, () => 0, () => client.close());
      clients.push(wrapped);
      return wrapped;
    };
    // The human first: `parley mcp` joins each handle with its kind on first use.
    const human = await connect('human', 'human');
    await exerciseEveryTool(await connect('coder', 'agent'), await connect('reviewer', 'agent'), human);
  }, 60_000);
});
