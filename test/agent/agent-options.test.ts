import { describe, expect, it } from 'vitest';
import { createAgent, parleyTools, runAgent } from '../../src/agent/index.js';
import { agentOnHub } from '../helpers/agent-on-hub.js';
import { caught } from '../helpers/hub.js';
import { hubOptionsFor, scriptedModel } from '../helpers/agent-loop.js';

/**
 * What the loop refuses before it touches the hub (a bad option is
 * INVALID_INPUT naming it), and parleyTools: the MCP tools' definitions as AI
 * SDK tools, run over the participant's link.
 */
const loop = agentOnHub();

const model = scriptedModel(() => ({ text: 'never' }));
const base = { handle: 'bot', url: 'http://127.0.0.1:9', token: 'unused', model };

describe('agent options', () => {
  it.each([
    ['model', { model: undefined }],
    ['model', { model: { notAModel: true } }],
    ['handle', { handle: 'not a handle!' }],
    ['url', { url: 'ftp://example.com' }],
    ['relevance', { relevance: 'sometimes' }],
    ['relevance.above', { relevance: { above: -1 } }],
    ['budget.tokens', { budget: { tokens: 0 } }],
    ['budget.turns', { budget: { turns: 1.5 } }],
    ['budget.speed', { budget: { speed: 1 } }],
    ['relevanceBudget.tokens', { relevanceBudget: { tokens: -5 } }],
    ['maxStepsPerTurn', { maxStepsPerTurn: 0 }],
    ['waitMs', { waitMs: 0 }],
    ['onEvent', { onEvent: 'log it' }],
    ['signal', { signal: {} }],
    ['tools.bad name', { tools: { 'bad name': {} } }],
    ['tools.chat_post', { tools: { chat_post: { description: 'mine', inputSchema: {}, execute: async () => 1 } } }],
    ['subagentTools.subagent_spawn', { subagentTools: { subagent_spawn: { description: 'mine', inputSchema: {} } } }],
    // Past the hub's longest wait, every wait would be refused.
    ['waitMs', { waitMs: 120_001 }],
    ['maxHistoryMessages', { maxHistoryMessages: 0 }],
    // A tool the loop cannot run by itself would leave a call without its result in the history.
    ['tools.lookup', { tools: { lookup: { description: 'no execute', inputSchema: {} } } }],
    ['tools.deploy', { tools: { deploy: { description: 'asks first', inputSchema: {}, execute: async () => 1, needsApproval: true } } }],
    ['subagentTools.fetch_page', { subagentTools: { fetch_page: { description: 'no execute', inputSchema: {} } } }],
    ['colour', { colour: 'blue' }],
  ])('refuses a bad %s', async (field, patch) => {
    const error = await caught(() => createAgent({ ...base, ...patch } as never));
    expect(error).toMatchObject({ code: 'INVALID_INPUT', field });
    expect(error.message).toMatch(new RegExp(`^Invalid ${field.replace('.', '\\.')}`));
  });

  it('says what to do: a waitMs past the hub\'s maximum names that maximum; a tool without execute asks for one', async () => {
    expect((await caught(() => createAgent({ ...base, waitMs: 120_001 }))).message).toContain('at most 120000 ms');
    const noExecute = await caught(() => createAgent({ ...base, tools: { lookup: { description: 'x', inputSchema: {} } } } as never));
    expect(noExecute.message).toBe('Invalid tools.lookup: the tool has no execute function; the loop runs every tool call itself, so give it execute (input) => result.');
  });

  it('spawn and fork are refused (CONFLICT) before run() and after it ended: a result would reach no one', async () => {
    const hub = await loop.open();
    const agent = createAgent({ ...hubOptionsFor(hub), model, log: false });
    for (const start of [() => agent.spawn('early'), () => agent.fork('early')]) {
      expect(await caught(start)).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('has not started yet; call run() first') });
    }
    const done = agent.run();
    agent.stop();
    expect((await done).reason).toBe('stopped');
    for (const start of [() => agent.spawn('late'), () => agent.fork('late')]) {
      expect(await caught(start)).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('has stopped; create another agent') });
    }
    expect(agent.subagents()).toEqual([]);
    expect(await caught(() => agent.run())).toMatchObject({ code: 'CONFLICT' });
  });

  it('runAgent refuses the same way, before reaching for the hub', async () => {
    expect(await caught(() => runAgent({ ...base, budget: { ms: 0 } }))).toMatchObject({ code: 'INVALID_INPUT', field: 'budget.ms' });
  });

  it('a token the hub does not know is refused when the loop starts, naming token', async () => {
    const hub = await loop.open();
    const error = await caught(() => runAgent({ ...hubOptionsFor(hub), token: 'not-a-token', model, log: false }));
    expect(error).toMatchObject({ code: 'UNAUTHORIZED', field: 'token' });
  });
});

describe('parleyTools', () => {
  it("gives the MCP server's chat, request and who tools, with their descriptions, run over the hub as the participant", async () => {
    const hub = await loop.open();
    const tools = await parleyTools({ handle: 'bot', url: hub.url, token: hub.agents.bot!.token, home: hub.t.home });
    expect(Object.keys(tools).sort()).toEqual([
      'chat_dm',
      'chat_history',
      'chat_mute',
      'chat_post',
      'chat_read',
      'chat_search',
      'chat_subscribe',
      'chat_thread_create',
      'chat_threads',
      'chat_unmute',
      'chat_unsubscribe',
      'request_respond',
      'request_send',
      'requests_open',
      'who',
    ]);
    expect(tools.chat_post?.description).toMatch(/^Posts a message to a channel or thread as you\./);
    const posted = (await tools.chat_post!.execute!({ text: 'hello from a tool' }, { toolCallId: 't1', messages: [] })) as { id: string };
    const { events } = await hub.human.history({ thread: 'general' });
    expect(events.filter((e) => e.id === posted.id).map((e) => [e.author, e.content])).toEqual([['bot', 'hello from a tool']]);
  });

  it('a participant without chat gets no chat tools', async () => {
    const hub = await loop.open({ config: { chat: { enabled: false } } });
    const tools = await parleyTools({ handle: 'bot', url: hub.url, token: hub.agents.bot!.token, home: hub.t.home });
    expect(Object.keys(tools).sort()).toEqual(['request_respond', 'request_send', 'requests_open', 'who']);
  });
});
