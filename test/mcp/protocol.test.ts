import { describe, expect, it } from 'vitest';
import { mcpOnHub } from '../helpers/mcp-fixtures.js';

const mcp = mcpOnHub();

async function setup(config?: Record<string, unknown>) {
  const hub = await mcp.open(config ? { config } : {});
  await hub.join({ handle: 'human', session: 'proj', profile: { kind: 'human' } });
  await hub.join({ handle: 'coder', session: 'proj', profile: { client: 'claude-code' } });
  await hub.join({ handle: 'reviewer', session: 'proj' });
  const coder = await mcp.connect('coder', 'proj');
  return { hub, coder };
}

describe('mcp protocol', () => {
  it('mcp - a new connection lists the global and chat tools, and carries the instructions', async () => {
    const { coder } = await setup();
    const names = await coder.toolNames();
    expect(names).toEqual(
      expect.arrayContaining(['whoami', 'rooms_list', 'rooms_find', 'room_load', 'room_unload', 'inbox', 'wait', 'who', 'chat_post', 'chat_read', 'chat_dm']),
    );
    expect(names).not.toContain('meeting_say');
    expect(names).not.toContain('steer_pause');
    const instructions = coder.client.getInstructions() ?? '';
    expect(instructions).toContain('You are @coder (agent) in session "proj"');
    expect(instructions).toContain('request_send');
    expect(instructions).toContain('@human');
    expect(instructions).toContain('untrusted peer chatter');
    expect(instructions).toContain('Your access is operator');
  });

  it('mcp - room_load and room_unload change tools/list and send list_changed; nested rooms load with or without children', async () => {
    const { coder } = await setup();
    const loaded = await coder.call('room_load', { room: 'meeting' });
    expect(loaded.value).toMatchObject({ loaded: ['meeting'], tools: expect.arrayContaining(['meeting_say', 'meeting_hear']) });
    await expect.poll(() => coder.listChanged()).toBe(1);
    expect(await coder.toolNames()).toContain('meeting_say');
    const unloaded = await coder.call('room_unload', { room: 'chat' });
    expect(unloaded.value).toMatchObject({ unloaded: ['chat'] });
    await expect.poll(() => coder.listChanged()).toBe(2);
    expect(await coder.toolNames()).not.toContain('chat_post');
    // chat without its child, then with it.
    await coder.call('room_load', { room: 'chat' });
    expect(await coder.toolNames()).not.toContain('steer_pause');
    const withChildren = await coder.call('room_load', { room: 'chat', with_children: true });
    // coder is an agent, an operator in local mode: the steer room (an admin's) is not its child at all.
    expect(withChildren.value).toMatchObject({ loaded: ['side'] });
    expect(await coder.toolNames()).toEqual(expect.arrayContaining(['side_open', 'side_close']));
    expect(await coder.toolNames()).not.toContain('steer_pause');
    const global = await coder.call('room_unload', { room: 'global' });
    expect(global.isError).toBe(true);
    expect(global.text).toContain('always loaded');
  });

  it('mcp - a tool of an unloaded room says which room to load; bad arguments name the field; nothing is stored', async () => {
    const { hub, coder } = await setup();
    const before = hub.stats().events;
    const notLoaded = await coder.call('meeting_say', { meeting: 'standup', text: 'hi' });
    expect(notLoaded).toMatchObject({ isError: true });
    expect(notLoaded.text).toContain('room_load with {"room":"meeting"}');
    const bad = await coder.call('chat_post', { text: 42 });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/^INVALID_INPUT: Invalid text/);
    const unknownField = await coder.call('chat_post', { text: 'x', author: 'human' });
    expect(unknownField.text).toContain('Invalid author: unknown field');
    const unknownThread = await coder.call('chat_post', { text: 'x', thread: 'nowhere' });
    expect(unknownThread.text).toMatch(/^NOT_FOUND: .*nowhere/);
    expect(hub.stats().events).toBe(before);
  });

  it('mcp - rooms are resources with their tools, availability and loaded state; rooms_find ranks by need', async () => {
    const { coder } = await setup();
    const resources = (await coder.client.listResources()).resources;
    expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining(['room://global', 'room://chat', 'room://meeting', 'room://side', 'room://compat']));
    // The steer room is an admin's: an operator agent is not shown it.
    expect(resources.map((r) => r.uri)).not.toContain('room://steer');
    const compat = JSON.parse(((await coder.client.readResource({ uri: 'room://compat' })).contents[0] as { text: string }).text) as Record<string, unknown>;
    expect(compat).toMatchObject({ available: false, loaded: false, requiredStates: ['compat'], tools: expect.arrayContaining(['katra_say']) });
    const chat = JSON.parse(((await coder.client.readResource({ uri: 'room://chat' })).contents[0] as { text: string }).text) as Record<string, unknown>;
    expect(chat).toMatchObject({ loaded: true, available: true, children: ['side'] });
    await expect(coder.client.readResource({ uri: 'room://nope' })).rejects.toThrow(/No resource/);
    const found = await coder.call('rooms_find', { need: 'ask the human to approve my plan' });
    expect((found.value.rooms as Array<{ id: string }>)[0]?.id).toBe('requests');
    const meeting = await coder.call('rooms_find', { need: 'join the standup meeting' });
    expect((meeting.value.rooms as Array<{ id: string }>)[0]?.id).toBe('meeting');
    const compatLoad = await coder.call('room_load', { room: 'compat' });
    expect(compatLoad.text).toMatch(/^FORBIDDEN: .*compat/);
  });
});

describe('mcp token economy', () => {
  it('economy - the default tool list stays under 2,500 tokens (≈ JSON bytes / 4), and any tool is one room_load away', async () => {
    // An admin: every room is there to load.
    const { coder } = await setup({ trust: { access: { coder: 'admin' } } });
    const defaults = JSON.stringify((await coder.client.listTools()).tools);
    expect(Math.ceil(defaults.length / 4)).toBeLessThan(2500);
    const rooms = (await coder.call('rooms_list')).value.rooms as Array<{ id: string; loaded: boolean; available?: boolean }>;
    for (const room of rooms.filter((r) => !r.loaded && r.available !== false)) {
      const loaded = await coder.call('room_load', { room: room.id });
      expect(loaded.isError, room.id).toBe(false);
      expect((loaded.value.tools as string[]).length, room.id).toBeGreaterThan(0);
    }
    const everything = JSON.stringify((await coder.client.listTools()).tools);
    expect(everything.length).toBeGreaterThan(defaults.length * 2);
  });
});

describe('mcp default rooms', () => {
  it('rooms - mcp.rooms sets the default set, mcp.participantRooms one participant\'s; "all" loads every available room', async () => {
    const hub = await mcp.open({ config: { mcp: { rooms: ['meeting'], participantRooms: { lead: 'all', quiet: [] } }, trust: { access: { lead: 'admin' } } } });
    for (const handle of ['dev', 'lead', 'quiet']) await hub.join({ handle, session: 'proj' });
    const [dev, lead, quiet] = [await mcp.connect('dev', 'proj'), await mcp.connect('lead', 'proj'), await mcp.connect('quiet', 'proj')];
    const devTools = await dev.toolNames();
    expect(devTools).toContain('meeting_say');
    expect(devTools).not.toContain('chat_post');
    expect(await lead.toolNames()).toEqual(expect.arrayContaining(['chat_post', 'steer_pause', 'meeting_say', 'request_send', 'presence_set']));
    expect((await lead.toolNames()).some((n) => n.startsWith('katra_'))).toBe(false);
    expect(await quiet.toolNames()).toEqual(['whoami', 'rooms_list', 'rooms_find', 'room_load', 'room_unload', 'inbox', 'inbox_ack', 'wait', 'who']);
  });
});
