import { afterEach, describe, expect, it } from 'vitest';
import { promptAddendum, QUESTION_REMINDER } from '../../src/format/agent-prompts.js';
import { withParley, type WithParleyOptions } from '../../src/middleware/index.js';
import { openAgentHub, type AgentHub } from '../helpers/agent-hub.js';
import { caught } from '../helpers/hub.js';
import { block, dmLine } from './model-script.js';

/**
 * withParley around a stub LLM function (it records each request and answers
 * as OpenAI's chat completions or Anthropic's messages API would), against a
 * real hub over loopback HTTP: the same behaviour as the AI SDK middleware.
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ADDENDUM = promptAddendum('bot');

type Request = Record<string, unknown>;

/** An OpenAI chat completion calling these tools (none: a text answer). */
function openai(...tools: string[]): object {
  const message = tools.length
    ? { role: 'assistant', content: null, tool_calls: tools.map((name, i) => ({ id: `c${i}`, type: 'function', function: { name, arguments: '{}' } })) }
    : { role: 'assistant', content: 'ok' };
  return { id: 'chatcmpl-1', choices: [{ index: 0, message, finish_reason: tools.length ? 'tool_calls' : 'stop' }] };
}

/** An Anthropic message calling these tools (none: a text answer). */
function anthropic(...tools: string[]): object {
  const content = tools.length ? tools.map((name, i) => ({ type: 'tool_use', id: `tu${i}`, name, input: {} })) : [{ type: 'text', text: 'ok' }];
  return { id: 'msg_1', type: 'message', role: 'assistant', content, stop_reason: tools.length ? 'tool_use' : 'end_turn' };
}

interface Stub {
  hub: AgentHub;
  logs: string[];
  /** What the LLM function was called with, in order. */
  requests: Request[];
  call: (request: Request) => Promise<unknown>;
}

/** The hub, and a wrapped stub answering each call with the next of `answers` (a function answers with what it returns or throws). */
async function stub(answers: Array<object | ((request: Request) => Promise<object>)>, options: Partial<WithParleyOptions<Request, unknown>> = {}): Promise<Stub> {
  const hub = await openAgentHub(['bot']);
  cleanups.push(() => hub.close());
  const logs: string[] = [];
  const requests: Request[] = [];
  const call = withParley(
    async (request: Request) => {
      requests.push(request);
      const answer = answers[requests.length - 1];
      if (answer === undefined) throw new Error('no answer scripted');
      return typeof answer === 'function' ? answer(request) : answer;
    },
    { handle: 'bot', url: hub.url, token: hub.agents.bot!.token, log: (line) => logs.push(line), ...options },
  );
  cleanups.push(() => call.close());
  return { hub, logs, requests, call };
}

async function states(hub: AgentHub): Promise<Array<[string, string]>> {
  return (await hub.human.sentDeliveries()).map((d) => [d.id, d.state]);
}

describe('withParley', () => {
  it('injection order - an OpenAI-shaped request gets the addendum in its leading system message and the chat as its last message; the request given is unchanged', async () => {
    const s = await stub([openai()]);
    const dm = await s.hub.human.dm({ to: 'bot', text: 'hi bot' });
    const request = { model: 'gpt', messages: [{ role: 'system', content: 'S' }, { role: 'user', content: 'go' }] };

    expect(await s.call(request)).toEqual(openai());

    expect(s.requests).toEqual([
      {
        model: 'gpt',
        messages: [
          { role: 'system', content: `S\n\n${ADDENDUM}` },
          { role: 'user', content: 'go' },
          { role: 'user', content: block(dmLine(dm, 'human', 'hi bot')) },
        ],
      },
    ]);
    expect(request).toEqual({ model: 'gpt', messages: [{ role: 'system', content: 'S' }, { role: 'user', content: 'go' }] });
    expect(await states(s.hub)).toEqual([[dm.id, 'injected']]);
    expect(s.logs).toEqual([`parley: injected 1 chat message into the model call for @bot (new cursor: ${dm.seq})`]);
  });

  it('addendum - an Anthropic-shaped request gets it in its top-level system string; one without any system gets a system message first, or a top-level system for a Claude model', async () => {
    const s = await stub([anthropic(), openai(), anthropic()]);
    const dm = await s.hub.human.dm({ to: 'bot', text: 'hi bot' });

    await s.call({ model: 'claude', system: 'S', messages: [{ role: 'user', content: 'go' }] });
    await s.call({ model: 'gpt', messages: [{ role: 'user', content: 'go' }] });
    // Anthropic's API refuses a system message among the messages.
    await s.call({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'go' }] });

    expect(s.requests).toEqual([
      { model: 'claude', system: `S\n\n${ADDENDUM}`, messages: [{ role: 'user', content: 'go' }, { role: 'user', content: block(dmLine(dm, 'human', 'hi bot')) }] },
      { model: 'gpt', messages: [{ role: 'system', content: ADDENDUM }, { role: 'user', content: 'go' }] },
      { model: 'claude-sonnet-4-5', system: ADDENDUM, messages: [{ role: 'user', content: 'go' }] },
    ]);
  });

  it('addendum - an Anthropic system given as blocks gets one more text block; an OpenAI developer message leading the messages gets it merged', async () => {
    const s = await stub([anthropic(), openai()]);

    await s.call({ system: [{ type: 'text', text: 'S', cache_control: { type: 'ephemeral' } }], messages: [{ role: 'user', content: 'go' }] });
    await s.call({ messages: [{ role: 'developer', content: 'D' }, { role: 'user', content: 'go' }] });

    expect(s.requests).toEqual([
      { system: [{ type: 'text', text: 'S', cache_control: { type: 'ephemeral' } }, { type: 'text', text: ADDENDUM }], messages: [{ role: 'user', content: 'go' }] },
      { messages: [{ role: 'developer', content: `D\n\n${ADDENDUM}` }, { role: 'user', content: 'go' }] },
    ]);
  });

  it('cursor advanced only after success - nothing is taken while the call runs, a DM posted meanwhile comes with the next call, and a call that throws takes nothing', async () => {
    let during: Awaited<ReturnType<AgentHub['human']['dm']>> | undefined;
    const seenDuring: Array<Array<[string, string]>> = [];
    const s = await stub([
      async () => {
        seenDuring.push(await states(s.hub));
        during = await s.hub.human.dm({ to: 'bot', text: 'posted while you thought' });
        return openai();
      },
      async () => {
        throw new Error('rate limited');
      },
      openai(),
    ]);
    const first = await s.hub.human.dm({ to: 'bot', text: 'first' });
    const request = { messages: [{ role: 'user', content: 'go' }] };

    await s.call(request);
    expect(seenDuring).toEqual([[[first.id, 'pending']]]);
    expect(await states(s.hub)).toEqual([
      [during!.id, 'pending'],
      [first.id, 'injected'],
    ]);

    expect((await caught(() => s.call(request))).message).toBe('rate limited');
    expect(await states(s.hub)).toEqual([
      [during!.id, 'pending'],
      [first.id, 'injected'],
    ]);

    await s.call(request);
    const last = (r: Request): unknown => (r.messages as unknown[]).at(-1);
    expect(s.requests.map(last)).toEqual([
      { role: 'user', content: block(dmLine(first, 'human', 'first')) },
      { role: 'user', content: block(dmLine(during!, 'human', 'posted while you thought')) },
      { role: 'user', content: block(dmLine(during!, 'human', 'posted while you thought')) },
    ]);
    expect(await states(s.hub)).toEqual([
      [during!.id, 'injected'],
      [first.id, 'injected'],
    ]);
    expect(s.logs).toEqual([
      `parley: injected 1 chat message into the model call for @bot (new cursor: ${first.seq})`,
      `parley: injected 1 chat message into the model call for @bot (new cursor: ${during!.seq})`,
    ]);
  });

  it('given chat - a conversation continued with the response gets its earlier chat back where it was given; the same opening asked again does not', async () => {
    const s = await stub([openai(), openai(), openai()]);
    const dm = await s.hub.human.dm({ to: 'bot', text: 'use the v2 schema' });
    const opening = [{ role: 'user', content: 'plan the migration' }];
    await s.call({ model: 'gpt', messages: opening });
    await s.call({ model: 'gpt', messages: [...opening, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'go on' }] });
    await s.call({ model: 'gpt', messages: opening });
    const given = { role: 'user', content: block(dmLine(dm, 'human', 'use the v2 schema')) };
    expect(s.requests.map((r) => (r.messages as unknown[]).slice(1))).toEqual([
      [opening[0], given],
      [opening[0], given, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'go on' }],
      [opening[0]],
    ]);
    expect(s.logs).toHaveLength(1);
  });

  it('reminder - after a response whose only tool calls were chat tools (OpenAI\'s or Anthropic\'s, also MCP-prefixed) the next request carries it; not after text, a non-chat tool or a mix', async () => {
    const s = await stub([openai('chat_post'), anthropic('read_file'), anthropic('mcp__parley__chat_dm'), openai('chat_post', 'read_file'), anthropic('chat_post'), anthropic(), openai()]);
    for (let i = 0; i < 7; i++) await s.call({ system: 'S', messages: [{ role: 'user', content: 'go' }] });

    const plain = `S\n\n${ADDENDUM}`;
    const reminded = `${QUESTION_REMINDER}\n\n${plain}`;
    expect(s.requests.map((r) => r.system)).toEqual([plain, reminded, plain, reminded, plain, reminded, plain]);
  });

  it('cap - with maxNewMessages 3 and 5 waiting, the 3 oldest come with a line saying 2 more wait; the next call gets the other 2', async () => {
    const s = await stub([openai(), openai(), openai()], { maxNewMessages: 3 });
    const dms = [];
    for (let i = 1; i <= 5; i++) dms.push(await s.hub.human.dm({ to: 'bot', text: `note ${i}` }));
    for (let i = 0; i < 3; i++) await s.call({ messages: [{ role: 'user', content: 'go' }] });

    const lines = dms.map((dm, i) => dmLine(dm, 'human', `note ${i + 1}`));
    expect(s.requests.map((r) => (r.messages as unknown[]).at(-1))).toEqual([
      { role: 'user', content: block(...lines.slice(0, 3), '2 more messages wait; they come with your next model call.') },
      { role: 'user', content: block(...lines.slice(3)) },
      { role: 'user', content: 'go' },
    ]);
    expect(s.logs).toEqual([
      `parley: injected 3 chat messages into the model call for @bot (new cursor: ${dms[2]!.seq})`,
      `parley: injected 2 chat messages into the model call for @bot (new cursor: ${dms[4]!.seq})`,
    ]);
  });

  it('a custom inject puts Parley\'s addition where the request keeps its prompt', async () => {
    const s = await stub([openai()], {
      inject: (request, addition) => ({ ...request, prompt: `${addition.system ?? ''}\n---\n${String(request.prompt)}\n---\n${addition.chat ?? ''}` }),
    });
    const dm = await s.hub.human.dm({ to: 'bot', text: 'hi bot' });

    await s.call({ prompt: 'go' });

    expect(s.requests).toEqual([{ prompt: `${ADDENDUM}\n---\ngo\n---\n${block(dmLine(dm, 'human', 'hi bot'))}` }]);
    expect(await states(s.hub)).toEqual([[dm.id, 'injected']]);
  });

  it('a request the default inject cannot place (no messages array) is INVALID_INPUT naming request.messages; the LLM is not called and nothing is taken', async () => {
    const s = await stub([openai()]);
    const dm = await s.hub.human.dm({ to: 'bot', text: 'hi bot' });

    expect(await caught(() => s.call({ prompt: 'go' }))).toMatchObject({ code: 'INVALID_INPUT', field: 'request.messages' });
    expect(s.requests).toEqual([]);
    expect(await states(s.hub)).toEqual([[dm.id, 'pending']]);
  });
});
