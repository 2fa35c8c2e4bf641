/**
 * parleyMiddleware through the real generateText with the AI SDK's mock
 * model, against a real hub over loopback HTTP: where the chat and the
 * addendum go, when the chat is taken, the reminder after a chat-only turn,
 * the cap, the log line and the delivery states.
 */

import { generateText, stepCountIs, tool, wrapLanguageModel, type LanguageModelMiddleware, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { promptAddendum, QUESTION_REMINDER } from '../../src/format/agent-prompts.js';
import { parleyMiddleware, type ParleyOptions } from '../../src/middleware/index.js';
import { openAgentHub, type AgentHub } from '../helpers/agent-hub.js';
import { block, dmLine, shape, textAnswer, toolCalls } from './model-script.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function agentHub(config: object = {}): Promise<AgentHub> {
  const hub = await openAgentHub(['bot'], { config });
  cleanups.push(() => hub.close());
  return hub;
}

function middleware(hub: AgentHub, logs: string[], options: Partial<ParleyOptions> = {}): ReturnType<typeof parleyMiddleware> {
  const mw = parleyMiddleware({ handle: 'bot', url: hub.url, token: hub.agents.bot!.token, log: (line) => logs.push(line), ...options });
  cleanups.push(() => mw.close());
  return mw;
}

const ADDENDUM = promptAddendum('bot');
const noop = tool({ description: 'does nothing', inputSchema: z.object({}), execute: async () => 'ok' });
const tools = { chat_post: noop, mcp__parley__chat_post: noop, read_file: noop };

describe('parleyMiddleware with generateText', () => {
  it('injection order - the chat block is the last message, after the user\'s own messages, with the addendum merged into the leading system message', async () => {
    const hub = await agentHub();
    const logs: string[] = [];
    const dm = await hub.human.dm({ to: 'bot', text: 'hi bot' });
    const mock = new MockLanguageModelV3({ doGenerate: textAnswer('hello') });
    const model = wrapLanguageModel({ model: mock, middleware: middleware(hub, logs) });

    const result = await generateText({ model, system: 'You are a coder.', messages: [{ role: 'user', content: 'first' }, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'go' }], maxRetries: 0 });

    expect(result.text).toBe('hello');
    expect(shape(mock.doGenerateCalls[0]!.prompt)).toEqual([
      ['system', `You are a coder.\n\n${ADDENDUM}`],
      ['user', 'first'],
      ['assistant', 'ok'],
      ['user', 'go'],
      ['user', block(dmLine(dm, 'human', 'hi bot'))],
    ]);
  });

  it('injection order - in a tool loop each step gets the addendum, and the chat that arrived since is last, after the tool results', async () => {
    const hub = await agentHub();
    const logs: string[] = [];
    const first = await hub.human.dm({ to: 'bot', text: 'look at the schema' });
    let second: Awaited<ReturnType<AgentHub['human']['dm']>> | undefined;
    const readFile = tool({
      description: 'reads a file',
      inputSchema: z.object({ path: z.string() }),
      execute: async () => {
        second = await hub.human.dm({ to: 'bot', text: 'and the README' });
        return 'file text';
      },
    });
    const mock = new MockLanguageModelV3({ doGenerate: [toolCalls(['read_file', { path: 'schema.sql' }]), textAnswer('done')] });
    const model = wrapLanguageModel({ model: mock, middleware: middleware(hub, logs) });

    const result = await generateText({ model, prompt: 'go', tools: { read_file: readFile }, stopWhen: stepCountIs(3), maxRetries: 0 });

    expect(result.text).toBe('done');
    expect(mock.doGenerateCalls.map((call) => shape(call.prompt))).toEqual([
      [
        ['system', ADDENDUM],
        ['user', 'go'],
        ['user', block(dmLine(first, 'human', 'look at the schema'))],
      ],
      [
        ['system', ADDENDUM],
        ['user', 'go'],
        // What the first step was given stays where it was given: the model still reads the message it acted on.
        ['user', block(dmLine(first, 'human', 'look at the schema'))],
        ['assistant', '<tool-call read_file>'],
        ['tool', '<tool-result read_file>'],
        ['user', block(dmLine(second!, 'human', 'and the README'))],
      ],
    ]);
    expect((await hub.human.sentDeliveries()).map((d) => [d.id, d.state])).toEqual([
      [second!.id, 'injected'],
      [first.id, 'injected'],
    ]);
  });

  it('given chat - a conversation continued with its response messages gets its earlier chat back in place; the same opening asked again does not', async () => {
    const hub = await agentHub();
    const logs: string[] = [];
    const dm = await hub.human.dm({ to: 'bot', text: 'use the v2 schema' });
    const mock = new MockLanguageModelV3({ doGenerate: [textAnswer('noted'), textAnswer('done'), textAnswer('fresh start')] });
    const model = wrapLanguageModel({ model: mock, middleware: middleware(hub, logs) });

    const opening: ModelMessage[] = [{ role: 'user', content: 'plan the migration' }];
    const first = await generateText({ model, messages: opening, maxRetries: 0 });
    // The caller keeps its history as the AI SDK gives it back: without the block the middleware added.
    const history: ModelMessage[] = [...opening, ...first.response.messages, { role: 'user', content: 'go on' }];
    await generateText({ model, messages: history, maxRetries: 0 });
    await generateText({ model, messages: opening, maxRetries: 0 });

    expect(mock.doGenerateCalls.map((call) => shape(call.prompt).slice(1))).toEqual([
      [
        ['user', 'plan the migration'],
        ['user', block(dmLine(dm, 'human', 'use the v2 schema'))],
      ],
      [
        ['user', 'plan the migration'],
        ['user', block(dmLine(dm, 'human', 'use the v2 schema'))],
        ['assistant', 'noted'],
        ['user', 'go on'],
      ],
      // A new conversation with the same opening: only what is new (nothing).
      [['user', 'plan the migration']],
    ]);
    // Given once on the hub: the repeats are history, not new injections.
    expect(logs.filter((line) => line.includes('injected'))).toHaveLength(1);
  });

  it('given chat - two runs with the same opening (an agent woken on a schedule) keep their chat apart: a step of the second never shows the first run\'s', async () => {
    const hub = await agentHub();
    const logs: string[] = [];
    let id = 0;
    // A real provider's tool call ids are unique per call.
    const step = () => ({ ...toolCalls(['read_file', { path: 'x' }]), content: [{ type: 'tool-call' as const, toolCallId: `call-${++id}`, toolName: 'read_file', input: '{}' }] });
    const mock = new MockLanguageModelV3({ doGenerate: [step(), textAnswer('done'), step(), textAnswer('done')] });
    const model = wrapLanguageModel({ model: mock, middleware: middleware(hub, logs) });
    const tools = { read_file: tool({ description: 'reads a file', inputSchema: z.object({}), execute: async () => 'text' }) };

    const old = await hub.human.dm({ to: 'bot', text: 'old news' });
    await generateText({ model, system: 'S', prompt: 'Carry on.', tools, stopWhen: stepCountIs(3), maxRetries: 0 });
    const fresh = await hub.human.dm({ to: 'bot', text: 'fresh news' });
    await generateText({ model, system: 'S', prompt: 'Carry on.', tools, stopWhen: stepCountIs(3), maxRetries: 0 });

    const blocks = mock.doGenerateCalls.map((call) => shape(call.prompt).filter(([, text]) => text.startsWith('Recent chat messages')).map(([, text]) => text));
    expect(blocks).toEqual([
      [block(dmLine(old, 'human', 'old news'))],
      [block(dmLine(old, 'human', 'old news'))],
      [block(dmLine(fresh, 'human', 'fresh news'))],
      [block(dmLine(fresh, 'human', 'fresh news'))],
    ]);
  });

  it('skip - a call with providerOptions.parley.skip (the agent loop\'s own) goes out as it came and takes nothing', async () => {
    const hub = await agentHub();
    const logs: string[] = [];
    const dm = await hub.human.dm({ to: 'bot', text: 'for the loop, not for this call' });
    const mock = new MockLanguageModelV3({ doGenerate: textAnswer('ok') });
    const model = wrapLanguageModel({ model: mock, middleware: middleware(hub, logs) });
    await generateText({ model, system: 'S', prompt: 'go', providerOptions: { parley: { skip: true } }, maxRetries: 0 });
    expect(shape(mock.doGenerateCalls[0]!.prompt)).toEqual([
      ['system', 'S'],
      ['user', 'go'],
    ]);
    expect((await hub.human.sentDeliveries()).map((d) => [d.id, d.state])).toEqual([[dm.id, 'pending']]);
    expect(logs).toEqual([]);
  });

  it('given chat - a block whose call failed is not given again later: it comes as new chat with the next call', async () => {
    const hub = await agentHub();
    const logs: string[] = [];
    const dm = await hub.human.dm({ to: 'bot', text: 'careful with the index' });
    let calls = 0;
    const mock = new MockLanguageModelV3({
      doGenerate: async () => {
        calls++;
        if (calls === 1) throw new Error('overloaded');
        return textAnswer('ok');
      },
    });
    const model = wrapLanguageModel({ model: mock, middleware: middleware(hub, logs) });
    await expect(generateText({ model, prompt: 'go', maxRetries: 0 })).rejects.toThrow('overloaded');
    const second = await generateText({ model, messages: [{ role: 'user', content: 'go' }], maxRetries: 0 });
    await generateText({ model, messages: [{ role: 'user', content: 'go' }, ...second.response.messages, { role: 'user', content: 'next' }], maxRetries: 0 });
    expect(mock.doGenerateCalls.map((call) => shape(call.prompt).slice(1))).toEqual([
      [['user', 'go'], ['user', block(dmLine(dm, 'human', 'careful with the index'))]],
      [['user', 'go'], ['user', block(dmLine(dm, 'human', 'careful with the index'))]],
      [['user', 'go'], ['user', block(dmLine(dm, 'human', 'careful with the index'))], ['assistant', 'ok'], ['user', 'next']],
    ]);
  });

  it('injection order - in a list of middlewares, Parley placed last adds the last message, after what the others added', async () => {
    const hub = await agentHub();
    const logs: string[] = [];
    const dm = await hub.human.dm({ to: 'bot', text: 'hi bot' });
    const other: LanguageModelMiddleware = {
      specificationVersion: 'v3',
      transformParams: async ({ params }) => ({ ...params, prompt: [...params.prompt, { role: 'user', content: [{ type: 'text', text: 'retrieved context' }] }] }),
    };
    const mock = new MockLanguageModelV3({ doGenerate: textAnswer('hello') });
    const model = wrapLanguageModel({ model: mock, middleware: [other, middleware(hub, logs)] });

    await generateText({ model, system: 'S', prompt: 'go', maxRetries: 0 });

    expect(shape(mock.doGenerateCalls[0]!.prompt)).toEqual([
      ['system', `S\n\n${ADDENDUM}`],
      ['user', 'go'],
      ['user', 'retrieved context'],
      ['user', block(dmLine(dm, 'human', 'hi bot'))],
    ]);
  });

  it('cursor advanced only after success - a model call that throws takes nothing: the DM stays pending and the next call gets it again', async () => {
    const hub = await agentHub();
    const logs: string[] = [];
    const dm = await hub.human.dm({ to: 'bot', text: 'do not lose me' });
    let fail = true;
    const mock = new MockLanguageModelV3({
      doGenerate: async () => {
        if (fail) throw new Error('model overloaded');
        return textAnswer('got it');
      },
    });
    const model = wrapLanguageModel({ model: mock, middleware: middleware(hub, logs) });

    await expect(generateText({ model, prompt: 'go', maxRetries: 0 })).rejects.toThrow('model overloaded');
    expect((await hub.human.sentDeliveries()).map((d) => [d.id, d.state])).toEqual([[dm.id, 'pending']]);
    expect(logs).toEqual([]);

    fail = false;
    await generateText({ model, prompt: 'go', maxRetries: 0 });
    const expected = ['user', block(dmLine(dm, 'human', 'do not lose me'))];
    expect(mock.doGenerateCalls.map((call) => shape(call.prompt).at(-1))).toEqual([expected, expected]);
    expect((await hub.human.sentDeliveries()).map((d) => [d.id, d.state])).toEqual([[dm.id, 'injected']]);
  });

  it('cursor advanced only after success - a DM posted while the model runs is not taken by that call and comes with the next one', async () => {
    const hub = await agentHub();
    const logs: string[] = [];
    const first = await hub.human.dm({ to: 'bot', text: 'first' });
    let during: Awaited<ReturnType<AgentHub['human']['dm']>> | undefined;
    const mock = new MockLanguageModelV3({
      doGenerate: async () => {
        during ??= await hub.human.dm({ to: 'bot', text: 'posted while you thought' });
        return textAnswer('ok');
      },
    });
    const model = wrapLanguageModel({ model: mock, middleware: middleware(hub, logs) });

    await generateText({ model, prompt: 'go', maxRetries: 0 });
    expect((await hub.human.sentDeliveries()).map((d) => [d.id, d.state])).toEqual([
      [during!.id, 'pending'],
      [first.id, 'injected'],
    ]);

    await generateText({ model, prompt: 'go', maxRetries: 0 });
    expect(mock.doGenerateCalls.map((call) => shape(call.prompt).at(-1))).toEqual([
      ['user', block(dmLine(first, 'human', 'first'))],
      ['user', block(dmLine(during!, 'human', 'posted while you thought'))],
    ]);
    expect((await hub.human.sentDeliveries()).map((d) => [d.id, d.state])).toEqual([
      [during!.id, 'injected'],
      [first.id, 'injected'],
    ]);
  });

  it('reminder - after a step whose only tool calls were chat tools (also under an MCP prefix) the next call carries it; not after no tool call, a non-chat tool or a mix', async () => {
    const hub = await agentHub();
    const logs: string[] = [];
    const mock = new MockLanguageModelV3({
      doGenerate: [
        toolCalls(['chat_post', { text: 'I am on it' }]),
        toolCalls(['read_file', {}]),
        toolCalls(['mcp__parley__chat_post', { text: 'still on it' }]),
        toolCalls(['chat_post', { text: 'and' }], ['read_file', {}]),
        textAnswer('done'),
        textAnswer('again done'),
      ],
    });
    const model = wrapLanguageModel({ model: mock, middleware: middleware(hub, logs) });

    await generateText({ model, system: 'S', prompt: 'go', tools, stopWhen: stepCountIs(5), maxRetries: 0 });
    // A later turn, the history ending with the step without tool calls.
    await generateText({ model, system: 'S', messages: [{ role: 'user', content: 'go' }, { role: 'assistant', content: 'done' }, { role: 'user', content: 'again' }], maxRetries: 0 });

    const plain = `S\n\n${ADDENDUM}`;
    const reminded = `${QUESTION_REMINDER}\n\n${plain}`;
    expect(mock.doGenerateCalls.map((call) => shape(call.prompt)[0])).toEqual([
      ['system', plain],
      ['system', reminded],
      ['system', plain],
      ['system', reminded],
      ['system', plain],
      ['system', plain],
    ]);
  });

  it('addendum - without a system prompt of the user\'s, a system message with it is put first', async () => {
    const hub = await agentHub();
    const mock = new MockLanguageModelV3({ doGenerate: textAnswer('hello') });
    const model = wrapLanguageModel({ model: mock, middleware: middleware(hub, []) });

    await generateText({ model, messages: [{ role: 'user', content: 'go' }], maxRetries: 0 });

    expect(shape(mock.doGenerateCalls[0]!.prompt)).toEqual([
      ['system', ADDENDUM],
      ['user', 'go'],
    ]);
  });

  it('cap - with maxNewMessages 3 and 5 waiting, the 3 oldest come with a line saying 2 more wait; the next call gets the other 2; one log line per injection, none without', async () => {
    const hub = await agentHub();
    const logs: string[] = [];
    const dms = [];
    for (let i = 1; i <= 5; i++) dms.push(await hub.human.dm({ to: 'bot', text: `note ${i}` }));
    const mock = new MockLanguageModelV3({ doGenerate: textAnswer('ok') });
    const model = wrapLanguageModel({ model: mock, middleware: middleware(hub, logs, { maxNewMessages: 3 }) });

    for (let call = 0; call < 3; call++) await generateText({ model, prompt: 'go', maxRetries: 0 });

    const lines = dms.map((dm, i) => dmLine(dm, 'human', `note ${i + 1}`));
    expect(mock.doGenerateCalls.map((call) => shape(call.prompt).at(-1))).toEqual([
      ['user', block(...lines.slice(0, 3), '2 more messages wait; they come with your next model call.')],
      ['user', block(...lines.slice(3))],
      ['user', 'go'],
    ]);
    expect(logs).toEqual([
      `parley: injected 3 chat messages into the model call for @bot (new cursor: ${dms[2]!.seq})`,
      `parley: injected 2 chat messages into the model call for @bot (new cursor: ${dms[4]!.seq})`,
    ]);
    expect((await hub.human.sentDeliveries()).map((d) => d.state)).toEqual(['injected', 'injected', 'injected', 'injected', 'injected']);
  });

  it('delivery states - a request to the agent comes with its request_id and how to answer (request_respond), a response to its own request too; both end injected', async () => {
    const hub = await agentHub();
    const logs: string[] = [];
    const bot = hub.agents.bot!.actor;
    const asked = await hub.human.request({ to: 'bot', intent: 'review', text: 'please review PR 7', params: { pr: 7 } });
    const own = await bot.request({ to: 'human', intent: 'deploy' });
    const answered = await hub.human.respond({ request_id: own.request_id, status: 'Completed', text: 'deployed' });
    const events = await bot.peek();
    const ts = (id: string): string => events.items.find((item) => item.event.id === id)!.event.ts.slice(11, 19);
    const mock = new MockLanguageModelV3({ doGenerate: textAnswer('ok') });
    const model = wrapLanguageModel({ model: mock, middleware: middleware(hub, logs) });

    await generateText({ model, prompt: 'go', maxRetries: 0 });

    expect(shape(mock.doGenerateCalls[0]!.prompt).at(-1)).toEqual([
      'user',
      block(
        `[${ts(asked.id)} UTC] Request from @human (request_id ${asked.request_id}); answer with request_respond.\nintent: "review"\n> please review PR 7\nparams: {"pr":7}`,
        `[${ts(answered.id)} UTC] Response from @human to your request ${own.request_id}: Completed.\n> deployed`,
      ),
    ]);
    expect(logs).toEqual([`parley: injected 2 chat messages into the model call for @bot (new cursor: ${answered.seq})`]);
    expect((await hub.human.sentDeliveries()).map((d) => [d.id, d.state])).toEqual([
      [answered.id, 'injected'],
      [asked.id, 'injected'],
    ]);
  });

  it('cap - by default (maxNewMessages unset) a call is given at most 100 new messages, and the line says how many more wait', async () => {
    const hub = await agentHub({ chat: { limits: { writesPerMinute: 0 } } });
    const logs: string[] = [];
    for (let i = 1; i <= 102; i++) await hub.human.dm({ to: 'bot', text: `note ${i}` });
    const mock = new MockLanguageModelV3({ doGenerate: textAnswer('ok') });
    const model = wrapLanguageModel({ model: mock, middleware: middleware(hub, logs) });

    await generateText({ model, prompt: 'go', maxRetries: 0 });

    const text = shape(mock.doGenerateCalls[0]!.prompt).at(-1)![1];
    expect(text.split('\n').filter((line) => line.startsWith('> note '))).toEqual(Array.from({ length: 100 }, (_, i) => `> note ${i + 1}`));
    expect(text.endsWith('\n2 more messages wait; they come with your next model call.')).toBe(true);
    expect(logs).toEqual([expect.stringMatching(/^parley: injected 100 chat messages into the model call for @bot \(new cursor: \d+\)$/)]);
  });

  it('reminder - a tool counts as chat by Parley\'s names, also under a Parley MCP server\'s prefix, or by the chatTools given; another server\'s look-alike (email_send_message, mcp__slack__chat_post) does not', async () => {
    const hub = await agentHub();
    const steps: Array<[tool: string, chat: boolean]> = [
      ['chat_dm', true],
      ['mcp__parley__chat_post', true],
      ['parley_chat_post', true],
      ['parley.chat_dm', true],
      ['send_message', true],
      ['email_send_message', false],
      ['mcp__slack__chat_post', false],
      ['slack_chat_post', false],
    ];
    const mock = new MockLanguageModelV3({ doGenerate: [...steps.map(([name]) => toolCalls([name, {}])), textAnswer('done')] });
    const model = wrapLanguageModel({ model: mock, middleware: middleware(hub, []) });
    const all = Object.fromEntries(steps.map(([name]) => [name, noop]));

    await generateText({ model, system: 'S', prompt: 'go', tools: all, stopWhen: stepCountIs(steps.length + 1), maxRetries: 0 });

    const plain = `S\n\n${ADDENDUM}`;
    const reminded = `${QUESTION_REMINDER}\n\n${plain}`;
    expect(mock.doGenerateCalls.map((call) => shape(call.prompt)[0]![1])).toEqual([plain, ...steps.map(([, chat]) => (chat ? reminded : plain))]);

    // Names given as chatTools count exactly, and under a Parley prefix.
    const custom = new MockLanguageModelV3({ doGenerate: [toolCalls(['team_say', {}]), toolCalls(['mcp__parley__team_say', {}]), toolCalls(['chat_post', {}]), textAnswer('done')] });
    const customModel = wrapLanguageModel({ model: custom, middleware: middleware(hub, [], { chatTools: ['team_say'] }) });
    await generateText({ model: customModel, system: 'S', prompt: 'go', tools: { team_say: noop, mcp__parley__team_say: noop, chat_post: noop }, stopWhen: stepCountIs(4), maxRetries: 0 });
    expect(custom.doGenerateCalls.map((call) => shape(call.prompt)[0]![1])).toEqual([plain, reminded, reminded, plain]);
  });

  it('cap - when the agent reads its inbox during the call (its own tool), the commit still takes only what the call was shown: nothing beyond the cap is marked injected', async () => {
    const hub = await agentHub();
    const dms: Array<Awaited<ReturnType<AgentHub['human']['dm']>>> = [];
    for (let i = 1; i <= 4; i++) dms.push(await hub.human.dm({ to: 'bot', text: `note ${i}` }));
    let read = false;
    const mock = new MockLanguageModelV3({
      doGenerate: async () => {
        // Its inbox tool, say, reads the oldest item meanwhile.
        if (!read) expect((await hub.agents.bot!.actor.inbox({ limit: 1 })).items.map((i) => i.event.id)).toEqual([dms[0]!.id]);
        read = true;
        return textAnswer('ok');
      },
    });
    const model = wrapLanguageModel({ model: mock, middleware: middleware(hub, [], { maxNewMessages: 2 }) });

    await generateText({ model, prompt: 'go', maxRetries: 0 });
    expect((await hub.human.sentDeliveries()).map((d) => [d.id, d.state])).toEqual([
      [dms[3]!.id, 'pending'],
      [dms[2]!.id, 'pending'],
      [dms[1]!.id, 'injected'],
      // Read by its tool, and given to the call's context too: injected, as the call was shown it.
      [dms[0]!.id, 'injected'],
    ]);

    await generateText({ model, prompt: 'go', maxRetries: 0 });
    const lines = dms.map((dm, i) => dmLine(dm, 'human', `note ${i + 1}`));
    expect(mock.doGenerateCalls.map((call) => shape(call.prompt).at(-1))).toEqual([
      ['user', block(...lines.slice(0, 2), '2 more messages wait; they come with your next model call.')],
      ['user', block(...lines.slice(2))],
    ]);
  });
});
