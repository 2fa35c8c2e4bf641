/**
 * The acceptance criteria of chat in model calls, where they touch the LLM
 * middleware (feature toggle, posting, size, redaction, session isolation,
 * cursors, prompts; exclusion is in exclusion.test.ts): each through the real
 * generateText with the mock model, against a real hub over loopback HTTP.
 */

import { generateText, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RestParticipant } from '../../src/client/rest-participant.js';
import { promptAddendum, QUESTION_REMINDER } from '../../src/format/agent-prompts.js';
import { parleyMiddleware } from '../../src/middleware/index.js';
import type { HubOptions } from '../../src/hub/hub.js';
import { openAgentHub, type AgentHub } from '../helpers/agent-hub.js';
import { block, channelLine, dmLine, shape, textAnswer, toolCalls } from './model-script.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function agentHub(handles: string[] = ['coder-1'], options: Partial<HubOptions> = {}): Promise<AgentHub> {
  const hub = await openAgentHub(handles, options);
  cleanups.push(() => hub.close());
  return hub;
}

/** A mock model wrapped for `handle` with the token given. */
function modelFor(hub: AgentHub, handle: string, token: string, doGenerate: NonNullable<ConstructorParameters<typeof MockLanguageModelV3>[0]>['doGenerate'] = textAnswer('ok')) {
  const mw = parleyMiddleware({ handle, url: hub.url, token, log: false });
  cleanups.push(() => mw.close());
  const mock = new MockLanguageModelV3({ doGenerate });
  return { mock, model: wrapLanguageModel({ model: mock, middleware: mw }) };
}

const noop = tool({ description: 'does nothing', inputSchema: z.object({}), execute: async () => 'ok' });

describe('LLM middleware acceptance criteria', () => {
  it('feature toggle - with chat.enabled false the model gets no chat, no addendum and no chat tools; with it on, it gets all three', async () => {
    for (const enabled of [true, false]) {
      const hub = await agentHub(['coder-1'], { config: { chat: { enabled } } });
      const request = await hub.human.request({ to: 'coder-1', intent: 'review' });
      const { mock, model } = modelFor(hub, 'coder-1', hub.agents['coder-1']!.token);
      await generateText({ model, system: 'S', prompt: 'go', tools: { chat_post: noop, read_file: noop }, maxRetries: 0 });
      const call = mock.doGenerateCalls[0]!;
      const got = { system: shape(call.prompt)[0], messages: call.prompt.length, tools: call.tools?.map((t) => t.name) };
      if (enabled) {
        expect(got).toEqual({ system: ['system', `S\n\n${promptAddendum('coder-1')}`], messages: 3, tools: ['chat_post', 'read_file'] });
        expect((await hub.human.sentDeliveries()).map((d) => [d.id, d.state])).toEqual([[request.id, 'injected']]);
      } else {
        expect(got).toEqual({ system: ['system', 'S'], messages: 2, tools: ['read_file'] });
        expect((await hub.human.sentDeliveries()).map((d) => [d.id, d.state])).toEqual([[request.id, 'pending']]);
      }
    }
  });

  it('posting - chat_post run with the agent\'s token is stored as the agent, in its session, and is not fed back to it', async () => {
    const hub = await agentHub();
    const api = new RestParticipant(hub.url, hub.agents['coder-1']!.token);
    cleanups.push(() => api.close());
    const chatPost = tool({
      description: 'posts to the channel',
      inputSchema: z.object({ text: z.string() }),
      execute: async ({ text }) => {
        const posted = await api.post({ thread: 'general', text });
        return { id: posted.id, success: true };
      },
    });
    const { mock, model } = modelFor(hub, 'coder-1', hub.agents['coder-1']!.token, [toolCalls(['chat_post', { text: 'hello' }]), textAnswer('posted')]);

    const result = await generateText({ model, prompt: 'say hello', tools: { chat_post: chatPost }, stopWhen: stepCountIs(2), maxRetries: 0 });

    expect(result.steps[0]!.toolResults.map((r) => r.output)).toEqual([{ id: expect.any(String), success: true }]);
    const history = await hub.human.history({ thread: 'general' });
    expect(history.events.filter((e) => e.type === 'message').map((e) => [e.author, e.content])).toEqual([['coder-1', 'hello']]);
    expect(await api.whoami()).toMatchObject({ participant: { handle: 'coder-1' }, session: { name: 'default' } });
    // Its own message is not news to it: the step after the post gets no chat block.
    expect(shape(mock.doGenerateCalls[1]!.prompt).at(-1)).toEqual(['tool', '<tool-result chat_post>']);
  });

  it('size enforcement - a message over maxMessageChars reaches the model as stored, ending with " … [truncated]"', async () => {
    const hub = await agentHub(['coder-1'], { config: { chat: { limits: { maxMessageChars: 40 } } } });
    const dm = await hub.human.dm({ to: 'coder-1', text: 'x'.repeat(100) });
    const stored = (await hub.agents['coder-1']!.actor.peek()).items[0]!.event.content as string;
    expect(dm.truncated).toBe(true);
    expect(stored.endsWith(' … [truncated]')).toBe(true);
    expect(stored.length).toBe(40);
    const { mock, model } = modelFor(hub, 'coder-1', hub.agents['coder-1']!.token);

    await generateText({ model, prompt: 'go', maxRetries: 0 });

    expect(shape(mock.doGenerateCalls[0]!.prompt).at(-1)).toEqual(['user', block(dmLine(dm, 'human', stored))]);
  });

  it('secret redaction - a secret reaches the model as "[redacted]", with the scanner\'s note once at the end', async () => {
    const hub = await agentHub();
    const secret = 'AKIAQ7RZ3MX2LP5TNB8W';
    const dm = await hub.human.dm({ to: 'coder-1', text: `use key ${secret} for the deploy` });
    expect(dm.redacted).toBe(true);
    const { mock, model } = modelFor(hub, 'coder-1', hub.agents['coder-1']!.token);

    await generateText({ model, prompt: 'go', maxRetries: 0 });

    const text = shape(mock.doGenerateCalls[0]!.prompt).at(-1)![1];
    expect(text).toBe(block(dmLine(dm, 'human', 'use key [redacted] for the deploy (Note: content redacted by scanner)')));
    expect(text).not.toContain(secret);
    expect(text.split('(Note: content redacted by scanner)')).toHaveLength(2);
  });

  it('session isolation - a message in another session is never injected', async () => {
    const hub = await agentHub();
    const otherHuman = await hub.t.hub.join({ handle: 'human', session: 'other', profile: { kind: 'human' } });
    await hub.t.hub.join({ handle: 'coder-1', session: 'other', profile: { kind: 'agent' } });
    await otherHuman.dm({ to: 'coder-1', text: 'from the other session' });
    await otherHuman.post({ thread: 'general', text: 'other session news' });
    const here = await hub.human.post({ thread: 'general', text: 'this session news' });
    const { mock, model } = modelFor(hub, 'coder-1', hub.agents['coder-1']!.token);

    await generateText({ model, prompt: 'go', maxRetries: 0 });
    await generateText({ model, prompt: 'go', maxRetries: 0 });

    expect(mock.doGenerateCalls.map((call) => shape(call.prompt).at(-1))).toEqual([
      ['user', block(channelLine(here, 'human', 'general', 'this session news'))],
      ['user', 'go'],
    ]);
    // The other session's coder-1 still has both waiting.
    expect((await hub.t.hub.actor('coder-1', 'other').peek()).items.map((i) => i.event.content)).toEqual(['from the other session', 'other session news']);
  });

  it('cursor advancement - after a call the agent\'s next read returns only what is newer than what the call was given', async () => {
    const hub = await agentHub();
    const first = await hub.human.dm({ to: 'coder-1', text: 'one' });
    const { mock, model } = modelFor(hub, 'coder-1', hub.agents['coder-1']!.token);
    const bot = new RestParticipant(hub.url, hub.agents['coder-1']!.token);
    cleanups.push(() => bot.close());

    await generateText({ model, prompt: 'go', maxRetries: 0 });
    expect((await bot.inject({ peek: true })).items).toEqual([]);
    const second = await hub.human.dm({ to: 'coder-1', text: 'two' });
    expect((await bot.inject({ peek: true })).items.map((i) => i.id)).toEqual([second.id]);
    await generateText({ model, prompt: 'go', maxRetries: 0 });

    expect(mock.doGenerateCalls.map((call) => shape(call.prompt).at(-1))).toEqual([
      ['user', block(dmLine(first, 'human', 'one'))],
      ['user', block(dmLine(second, 'human', 'two'))],
    ]);
    expect((await bot.inject({ peek: true })).items).toEqual([]);
  });

  it('prompt behaviours - the addendum for a coder and not for an architect; after a chat-only turn the next call carries the reminder', async () => {
    const hub = await agentHub(['coder-1'], { config: { mcp: { excludedKinds: ['architect'] } } });
    await hub.t.hub.join({ handle: 'architect', profile: { roles: ['architect'] } });
    const script = () => [toolCalls(['chat_post', { text: 'tip: run the linter' }]), textAnswer('done')];
    const coder = modelFor(hub, 'coder-1', hub.agents['coder-1']!.token, script());
    const architect = modelFor(hub, 'architect', await hub.t.hub.issueToken('architect'), script());

    for (const { model } of [coder, architect]) await generateText({ model, system: 'S', prompt: 'go', tools: { chat_post: noop }, stopWhen: stepCountIs(2), maxRetries: 0 });

    const addendum = `S\n\n${promptAddendum('coder-1')}`;
    expect(coder.mock.doGenerateCalls.map((call) => shape(call.prompt)[0])).toEqual([
      ['system', addendum],
      // The reminder is prepended to the next call's system prompt (the prelude).
      ['system', `${QUESTION_REMINDER}\n\n${addendum}`],
    ]);
    expect(QUESTION_REMINDER).toBe('Reminder: if this is a blocking question for a human, use request_send — not chat.');
    expect(architect.mock.doGenerateCalls.map((call) => shape(call.prompt)[0])).toEqual([
      ['system', 'S'],
      ['system', 'S'],
    ]);
  });
});
