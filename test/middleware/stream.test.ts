import { stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { z } from 'zod';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { promptAddendum } from '../../src/format/agent-prompts.js';
import { parleyMiddleware } from '../../src/middleware/index.js';
import { openAgentHub, type AgentHub } from '../helpers/agent-hub.js';
import { block, dmLine, shape, streamOf, textParts, usage } from './model-script.js';

/**
 * parleyMiddleware through the real streamText: the chat a stream was given
 * is taken only once the stream has finished without error; a stream with an
 * error part, or one its consumer stops, takes nothing, and the next call
 * gets the same messages.
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(doStream: NonNullable<ConstructorParameters<typeof MockLanguageModelV3>[0]>['doStream']) {
  const hub = await openAgentHub(['bot']);
  cleanups.push(() => hub.close());
  const logs: string[] = [];
  const mw = parleyMiddleware({ handle: 'bot', url: hub.url, token: hub.agents.bot!.token, log: (line) => logs.push(line) });
  cleanups.push(() => mw.close());
  const mock = new MockLanguageModelV3({ doStream });
  return { hub, logs, mock, model: wrapLanguageModel({ model: mock, middleware: mw }) };
}

async function states(hub: AgentHub): Promise<Array<[string, string]>> {
  return (await hub.human.sentDeliveries()).map((d) => [d.id, d.state]);
}

describe('parleyMiddleware with streamText', () => {
  it('cursor advanced only after success - a stream takes its chat only once it has finished', async () => {
    let controller!: ReadableStreamDefaultController<ReturnType<typeof textParts>[number]>;
    const { hub, logs, mock, model } = await setup(async () => ({
      stream: new ReadableStream({
        start(c) {
          controller = c;
          for (const part of textParts('hel', [])) c.enqueue(part);
        },
      }),
    }));
    const dm = await hub.human.dm({ to: 'bot', text: 'hi bot' });

    const result = streamText({ model, system: 'S', prompt: 'go', maxRetries: 0 });
    const reader = result.textStream.getReader();
    expect(await reader.read()).toEqual({ done: false, value: 'hel' });
    // Mid-stream: the model has begun answering, the chat is not taken yet.
    expect(await states(hub)).toEqual([[dm.id, 'pending']]);
    expect(logs).toEqual([]);

    controller.enqueue({ type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage });
    controller.close();
    while (!(await reader.read()).done);
    expect(await result.text).toBe('hel');
    expect(await states(hub)).toEqual([[dm.id, 'injected']]);
    expect(logs).toEqual([`parley: injected 1 chat message into the model call for @bot (new cursor: ${dm.seq})`]);
    expect(shape(mock.doStreamCalls[0]!.prompt)).toEqual([
      ['system', `S\n\n${promptAddendum('bot')}`],
      ['user', 'go'],
      ['user', block(dmLine(dm, 'human', 'hi bot'))],
    ]);
  });

  it('cursor advanced only after success - a stream with an error part, one that finishes for an error, or one cut off before its finish takes nothing; the next call gets the same DM', async () => {
    const finishedFor = (unified: 'error' | 'stop') => ({ type: 'finish' as const, finishReason: { unified, raw: undefined }, usage });
    const { hub, logs, mock, model } = await setup([
      streamOf(textParts('partial', [{ type: 'error', error: new Error('overloaded') }, finishedFor('stop')])),
      streamOf(textParts('partial', [{ type: 'error', error: new Error('overloaded') }])),
      streamOf(textParts('partial', [finishedFor('error')])),
      // Cut off: the stream closed before any finish.
      streamOf(textParts('partial', [])),
      streamOf(textParts('ok', [finishedFor('stop')])),
    ]);
    const dm = await hub.human.dm({ to: 'bot', text: 'keep me' });
    const errors: unknown[] = [];

    for (let i = 0; i < 4; i++) {
      const failed = streamText({ model, prompt: 'go', maxRetries: 0, onError: ({ error }) => void errors.push(error) });
      await failed.consumeStream();
      expect(await states(hub)).toEqual([[dm.id, 'pending']]);
    }
    expect(errors).toEqual([new Error('overloaded'), new Error('overloaded')]);
    expect(logs).toEqual([]);

    const ok = streamText({ model, prompt: 'go', maxRetries: 0 });
    expect(await ok.text).toBe('ok');
    const expected = ['user', block(dmLine(dm, 'human', 'keep me'))];
    expect(mock.doStreamCalls.map((call) => shape(call.prompt).at(-1))).toEqual([expected, expected, expected, expected, expected]);
    expect(await states(hub)).toEqual([[dm.id, 'injected']]);
  });

  it('cursor advanced only after success - a stream its consumer aborts takes nothing; the next call gets the same DM', async () => {
    let calls = 0;
    const { hub, logs, mock, model } = await setup(async (options) => {
      calls += 1;
      if (calls > 1) return streamOf(textParts('again'));
      // The first answer starts and then never ends on its own: only the consumer's abort ends it, as a provider's
      // fetch-based stream ends, with the call's abort signal.
      return {
        stream: new ReadableStream({
          start: (c) => {
            for (const part of textParts('slow', [])) c.enqueue(part);
            options.abortSignal?.addEventListener('abort', () => c.error(options.abortSignal?.reason), { once: true });
          },
        }),
      };
    });
    const dm = await hub.human.dm({ to: 'bot', text: 'still here' });
    const abort = new AbortController();

    const aborted = streamText({ model, prompt: 'go', maxRetries: 0, abortSignal: abort.signal, onError: () => undefined });
    const reader = aborted.textStream.getReader();
    expect(await reader.read()).toEqual({ done: false, value: 'slow' });
    abort.abort();
    while (!(await reader.read().catch(() => ({ done: true }))).done);
    expect(await states(hub)).toEqual([[dm.id, 'pending']]);
    expect(logs).toEqual([]);

    const ok = streamText({ model, prompt: 'go', maxRetries: 0 });
    expect(await ok.text).toBe('again');
    const expected = ['user', block(dmLine(dm, 'human', 'still here'))];
    expect(mock.doStreamCalls.map((call) => shape(call.prompt).at(-1))).toEqual([expected, expected]);
    expect(await states(hub)).toEqual([[dm.id, 'injected']]);
  });
  it('given chat - in a streamed tool loop, the block the first step was given is still there in the next step, before the tool call it led to', async () => {
    const toolStep = [
      { type: 'stream-start' as const, warnings: [] },
      { type: 'tool-call' as const, toolCallId: 'stream-call-1', toolName: 'read_file', input: '{}' },
      { type: 'finish' as const, finishReason: { unified: 'tool-calls' as const, raw: undefined }, usage },
    ];
    const { hub, mock, model } = await setup([streamOf(toolStep), streamOf(textParts('done'))]);
    const dm = await hub.human.dm({ to: 'bot', text: 'look at x' });
    const tools = { read_file: tool({ description: 'reads a file', inputSchema: z.object({}), execute: async () => 'text' }) };
    const result = streamText({ model, prompt: 'go', tools, stopWhen: stepCountIs(3), maxRetries: 0 });
    expect(await result.text).toBe('done');
    expect(mock.doStreamCalls.map((call) => shape(call.prompt).slice(1))).toEqual([
      [['user', 'go'], ['user', block(dmLine(dm, 'human', 'look at x'))]],
      [['user', 'go'], ['user', block(dmLine(dm, 'human', 'look at x'))], ['assistant', '<tool-call read_file>'], ['tool', '<tool-result read_file>']],
    ]);
  });
});
