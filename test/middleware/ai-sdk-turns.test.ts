/**
 * parleyMiddleware through the real generateText with the AI SDK's mock
 * model, against a real hub over loopback HTTP: the reminder after a
 * chat-only turn, the addendum on its own, the cap, the log line and the
 * delivery states.
 */

import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { QUESTION_REMINDER } from '../../src/format/agent-prompts.js';
import { block, dmLine, shape, textAnswer, toolCalls } from './model-script.js';
import type { AgentHub } from '../helpers/agent-hub.js';
import { ADDENDUM, middlewareHub, noop, tools } from './ai-sdk-setup.js';

const { agentHub, middleware } = middlewareHub();

describe('parleyMiddleware with generateText, turn by turn', () => {
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
