import { MockLanguageModelV3 } from 'ai/test';
import type { AgentEvent } from '../../src/agent/index.js';

/**
 * A scripted model and an event log for the agent-loop tests: the model is a
 * function of the exact prompt it is given (as a real one is), and the tests
 * wait on the loop's own events instead of sleeping.
 */
type CallOptions = Parameters<MockLanguageModelV3['doGenerate']>[0];
type GenerateResult = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;

/** What a scripted call answers: text, tool calls, or an error to throw. */
export type Reply = { text: string } | { calls: Array<{ tool: string; input: Record<string, unknown> }> } | { error: string };

export interface Call {
  /** 0-based number of this call to this model. */
  n: number;
  options: CallOptions;
  /** The prompt as text per message: "role: text" (tool calls and results as JSON). */
  prompt: string[];
  /** The last message's text. */
  last: string;
  /** The tool names the call offered. */
  tools: string[];
  system: string;
}

/** Tokens each scripted call reports: 10 in, 5 out. */
export const CALL_TOKENS = 15;

export function scriptedModel(script: (call: Call) => Reply | Promise<Reply>): MockLanguageModelV3 {
  let n = 0;
  const model: MockLanguageModelV3 = new MockLanguageModelV3({
    doGenerate: async (options) => {
      const call = describe(n++, options);
      const reply = await script(call);
      if ('error' in reply) throw new Error(reply.error);
      return answer(reply);
    },
  });
  return model;
}

export function describe(n: number, options: CallOptions): Call {
  const prompt = options.prompt.map((message) => {
    if (message.role === 'system') return `system: ${message.content}`;
    const parts = message.content.map((part) => (part.type === 'text' ? part.text : JSON.stringify(part)));
    return `${message.role}: ${parts.join('\n')}`;
  });
  const system = options.prompt[0]?.role === 'system' ? options.prompt[0].content : '';
  return { n, options, prompt, last: prompt[prompt.length - 1] ?? '', tools: (options.tools ?? []).map((t) => t.name).sort(), system };
}

let callIds = 0;

function answer(reply: { text: string } | { calls: Array<{ tool: string; input: Record<string, unknown> }> }): GenerateResult {
  const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };
  if ('text' in reply) return { content: [{ type: 'text', text: reply.text }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
  return {
    content: reply.calls.map((c) => ({ type: 'tool-call' as const, toolCallId: `call-${++callIds}`, toolName: c.tool, input: JSON.stringify(c.input) })),
    finishReason: { unified: 'tool-calls', raw: undefined },
    usage,
    warnings: [],
  };
}

/** The loop's events, in order, with a way to wait for one. */
/**
 * A model call that runs until its signal aborts, as a provider's request does. A signal already aborted when the
 * call starts (a deadline that passed between the loop's last look at the clock and the call) rejects at once:
 * a listener added then would never fire, and the call would hang.
 */
export function untilAborted(call: Call): Promise<Reply> {
  return new Promise<Reply>((_, reject) => {
    const signal = call.options.abortSignal;
    if (signal?.aborted) reject(new Error('aborted'));
    else signal?.addEventListener('abort', () => reject(new Error('aborted')));
  });
}

export class EventLog {
  readonly events: AgentEvent[] = [];
  readonly #waiters: Array<{ from: number; match: (e: AgentEvent) => boolean; resolve: (e: AgentEvent) => void }> = [];

  readonly push = (event: AgentEvent): void => {
    this.events.push(event);
    for (const waiter of [...this.#waiters]) {
      if (this.events.length - 1 >= waiter.from && waiter.match(event)) {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.resolve(event);
      }
    }
  };

  /** A mark: `next(..., mark)` only considers events after it. */
  mark(): number {
    return this.events.length;
  }

  /** The first event of this type (matching `match`) at or after `from`, now or when it comes. */
  next<T extends AgentEvent['type']>(type: T, from = 0, match: (e: Extract<AgentEvent, { type: T }>) => boolean = () => true): Promise<Extract<AgentEvent, { type: T }>> {
    const fits = (e: AgentEvent): boolean => e.type === type && match(e as Extract<AgentEvent, { type: T }>);
    const found = this.events.slice(from).find(fits);
    if (found) return Promise.resolve(found as Extract<AgentEvent, { type: T }>);
    return new Promise((resolve) => this.#waiters.push({ from, match: fits, resolve: resolve as (e: AgentEvent) => void }));
  }

  of<T extends AgentEvent['type']>(type: T): Array<Extract<AgentEvent, { type: T }>> {
    return this.events.filter((e) => e.type === type) as Array<Extract<AgentEvent, { type: T }>>;
  }
}

/** How the agent `handle` of a test hub reaches it (never the machine's own home). */
export function hubOptionsFor(hub: { url: string; t: { home: string }; agents: Record<string, { token: string }> }, handle = 'bot') {
  const agent = hub.agents[handle];
  if (!agent) throw new Error(`no agent ${handle} in this hub`);
  return { handle, url: hub.url, token: agent.token, home: hub.t.home, maxRetries: 0 };
}

/** The texts of a thread as the human sees it, oldest first, with their authors. */
export async function said(api: { history(input: { thread: string }): Promise<{ events: Array<{ author: string; content: unknown; type: string }> }> }, thread: string) {
  const { events } = await api.history({ thread });
  return events.filter((e) => e.type === 'message').map((e) => `${e.author}: ${String(e.content)}`);
}
