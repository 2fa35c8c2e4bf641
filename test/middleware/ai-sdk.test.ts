/**
 * parleyMiddleware through the real generateText with the AI SDK's mock
 * model, against a real hub over loopback HTTP: where the chat and the
 * addendum go, and when the chat is taken (ai-sdk-turns.test.ts: the
 * reminder after a chat-only turn, the cap, the log line and the delivery
 * states).
 */

import { generateText, stepCountIs, tool, wrapLanguageModel, type LanguageModelMiddleware, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { block, dmLine, shape, textAnswer, toolCalls } from './model-script.js';
import type { AgentHub } from '../helpers/agent-hub.js';
import { ADDENDUM, middlewareHub } from './ai-sdk-setup.js';

const { agentHub, middleware } = middlewareHub();

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

});
