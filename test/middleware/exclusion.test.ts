/**
 * Chat exclusion: a participant whose kind or role the hub excludes from chat
 * (mcp.excludedKinds), or everyone when chat.enabled is false, gets nothing
 * from the middleware or the wrapper — no chat block, no addendum, no reminder,
 * no chat tools — and nothing is marked injected for it: the request addressed
 * to it stays pending for its own tools.
 */

import { generateText, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parleyMiddleware, withParley } from '../../src/middleware/index.js';
import { openAgentHub, type AgentHub } from '../helpers/agent-hub.js';
import { shape, textAnswer, toolCalls } from './model-script.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const noop = tool({ description: 'does nothing', inputSchema: z.object({}), execute: async () => 'ok' });

interface Closed {
  hub: AgentHub;
  handle: string;
  token: string;
  /** The request sent to the participant (it still reaches it, outside chat). */
  requestId: string;
}

async function architectHub(excludedKinds: string[], profile: { kind?: 'agent'; roles?: string[] }): Promise<Closed> {
  const hub = await openAgentHub([], { config: { mcp: { excludedKinds } } });
  cleanups.push(() => hub.close());
  await hub.t.hub.join({ handle: 'arch', profile });
  const token = await hub.t.hub.issueToken('arch');
  // Chat around it: a channel message naming it (the default channel), and a request to it.
  await hub.human.post({ thread: 'general', text: '@arch the schema is settled' });
  const request = await hub.human.request({ to: 'arch', intent: 'rate the schema' });
  return { hub, handle: 'arch', token, requestId: request.id };
}

async function chatOffHub(): Promise<Closed> {
  const hub = await openAgentHub(['coder'], { config: { chat: { enabled: false } } });
  cleanups.push(() => hub.close());
  const request = await hub.human.request({ to: 'coder', intent: 'rate the schema' });
  return { hub, handle: 'coder', token: hub.agents.coder!.token, requestId: request.id };
}

/** withParley around a stub LLM call that records each request it is sent and answers text. */
function recordingCall(hub: AgentHub, handle: string, token: string) {
  const sent: unknown[] = [];
  const call = withParley(
    async (request: unknown) => {
      sent.push(request);
      return { content: [{ type: 'text', text: 'ok' }] };
    },
    { handle, url: hub.url, token, log: false },
  );
  cleanups.push(() => call.close());
  return { sent, call };
}

/** An OpenAI-shaped tool definition. */
const fn = (name: string) => ({ type: 'function', function: { name, parameters: {} } });

const cases: Array<[string, () => Promise<Closed>]> = [
  ['an architect (its role in mcp.excludedKinds)', () => architectHub(['architect'], { kind: 'agent', roles: ['architect'] })],
  ['an excluded kind (agent in mcp.excludedKinds)', () => architectHub(['agent'], { kind: 'agent' })],
  ['chat.enabled=false', chatOffHub],
];

describe('exclusion', () => {
  for (const [name, open] of cases) {
    it(`exclusion - for ${name}, parleyMiddleware adds nothing, removes the chat tools, marks nothing injected, and says nothing`, async () => {
      const { hub, handle, token, requestId } = await open();
      const logs: string[] = [];
      const mw = parleyMiddleware({ handle, url: hub.url, token, log: (line) => logs.push(line) });
      cleanups.push(() => mw.close());
      const mock = new MockLanguageModelV3({ doGenerate: [toolCalls(['chat_post', { text: 'hi' }]), textAnswer('done')] });
      const model = wrapLanguageModel({ model: mock, middleware: mw });

      const tools = { chat_post: noop, mcp__parley__chat_dm: noop, read_file: noop, email_send_message: noop };
      await generateText({ model, system: 'S', prompt: 'go', tools, stopWhen: stepCountIs(2), maxRetries: 0 });

      expect(mock.doGenerateCalls.map((call) => shape(call.prompt))).toEqual([
        [['system', 'S'], ['user', 'go']],
        // Had it called a chat tool anyway, no reminder follows.
        [['system', 'S'], ['user', 'go'], ['assistant', '<tool-call chat_post>'], ['tool', '<tool-result chat_post>']],
      ]);
      expect(mock.doGenerateCalls.map((call) => call.tools?.map((t) => t.name))).toEqual([
        ['read_file', 'email_send_message'],
        ['read_file', 'email_send_message'],
      ]);
      expect((await hub.human.sentDeliveries()).map((d) => [d.id, d.state])).toEqual([[requestId, 'pending']]);
      expect(logs).toEqual([]);
    });

    it(`exclusion - for ${name}, withParley sends the request as it came and marks nothing injected`, async () => {
      const { hub, handle, token, requestId } = await open();
      const logs: string[] = [];
      const sent: unknown[] = [];
      const call = withParley(
        async (request: unknown) => {
          sent.push(request);
          return { choices: [{ message: { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'chat_post', arguments: '{}' } }] } }] };
        },
        { handle, url: hub.url, token, log: (line) => logs.push(line) },
      );
      cleanups.push(() => call.close());
      const request = { model: 'gpt', messages: [{ role: 'system', content: 'S' }, { role: 'user', content: 'go' }] };

      await call(request);
      await call(request);

      expect(sent).toEqual([request, request]);
      expect((await hub.human.sentDeliveries()).map((d) => [d.id, d.state])).toEqual([[requestId, 'pending']]);
      expect(logs).toEqual([]);
    });

    it(`exclusion - for ${name}, withParley takes the chat tools out of an OpenAI- or Anthropic-shaped request, and nothing else`, async () => {
      const { hub, handle, token } = await open();
      const { sent, call } = recordingCall(hub, handle, token);
      const openaiRequest = { model: 'gpt', messages: [{ role: 'user', content: 'go' }], tools: [fn('chat_post'), fn('read_file'), fn('mcp__parley__chat_dm')] };
      const anthropicRequest = { model: 'claude', system: 'S', messages: [{ role: 'user', content: 'go' }], tools: [{ name: 'read_file', input_schema: {} }, { name: 'chat_post', input_schema: {} }] };

      await call(openaiRequest);
      await call(anthropicRequest);

      expect(sent).toEqual([
        { model: 'gpt', messages: [{ role: 'user', content: 'go' }], tools: [fn('read_file')] },
        { model: 'claude', system: 'S', messages: [{ role: 'user', content: 'go' }], tools: [{ name: 'read_file', input_schema: {} }] },
      ]);
    });

    it(`exclusion - for ${name}, a call that forces a chat tool is refused before it is sent, naming the option; one forcing another tool goes`, async () => {
      const { hub, handle, token } = await open();
      const mw = parleyMiddleware({ handle, url: hub.url, token, log: false });
      cleanups.push(() => mw.close());
      const mock = new MockLanguageModelV3({ doGenerate: toolCalls(['read_file', {}]) });
      const model = wrapLanguageModel({ model: mock, middleware: mw });
      const tools = { chat_post: noop, read_file: noop };
      const refused = await generateText({ model, prompt: 'go', tools, toolChoice: { type: 'tool', toolName: 'chat_post' }, maxRetries: 0 }).catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: 'INVALID_INPUT', field: 'toolChoice' });
      expect((refused as Error).message).toBe(
        `Invalid toolChoice: it forces chat_post, but @${handle} has no chat on this hub (chat is off, or its kind is in mcp.excludedKinds); let the model choose, or force another tool.`,
      );
      await generateText({ model, prompt: 'go', tools, toolChoice: { type: 'tool', toolName: 'read_file' }, maxRetries: 0 });
      expect(mock.doGenerateCalls.map((c) => [c.tools?.map((t) => t.name), c.toolChoice])).toEqual([[['read_file'], { type: 'tool', toolName: 'read_file' }]]);

      const { sent, call } = recordingCall(hub, handle, token);
      const forced = await call({ model: 'gpt', messages: [{ role: 'user', content: 'go' }], tools: [fn('chat_post'), fn('read_file')], tool_choice: { type: 'function', function: { name: 'chat_post' } } }).catch((error: unknown) => error);
      expect(forced).toMatchObject({ code: 'INVALID_INPUT', field: 'tool_choice' });
      await call({ model: 'claude', system: 'S', messages: [{ role: 'user', content: 'go' }], tools: [{ name: 'chat_post' }, { name: 'read_file' }], tool_choice: { type: 'tool', name: 'read_file' } });
      expect(sent).toEqual([{ model: 'claude', system: 'S', messages: [{ role: 'user', content: 'go' }], tools: [{ name: 'read_file' }], tool_choice: { type: 'tool', name: 'read_file' } }]);
    });
  }
});
