import { z } from 'zod';
import { ParleyError } from '../errors/parley-error.js';
import { chatOnly } from './chat-only-turn.js';
import { GivenChat } from './given-chat.js';
import { forcedChatTool } from './forced-chat-tool.js';
import { ParleyOptionsSchema, parleyOptions, type ParleyOptions } from './options.js';
import { ParleySession } from './parley-session.js';

/**
 * What Parley changes in one request: text for the system prompt and the
 * block of new chat to put last; or, for a participant without chat (an
 * excluded kind, chat off), only `withoutTools` — its chat tools, to take
 * out of the request (an excluded architect sees no chat tools).
 */
export interface ParleyAddition {
  /** For the end of the system prompt (the addendum). */
  system?: string;
  /** For its start (the prelude): the reminder, after a chat-only turn. */
  prelude?: string;
  chat?: string;
  withoutTools?: (toolName: string) => boolean;
  /** Who the call is for (in errors). */
  handle?: string;
}

export interface WithParleyOptions<Req, Res> extends ParleyOptions {
  /**
   * Returns the request with Parley's addition in it. Default: for a request
   * with a `messages` array (OpenAI's chat completions, Anthropic's messages,
   * most others), the system text joins a top-level `system` or the leading
   * system message (one is put first when there is none), and the chat is a
   * last user message; `withoutTools` filters a `tools` array of OpenAI's
   * (`function.name`) or Anthropic's (`name`) shape. The request given is
   * never changed.
   */
  inject?: (request: Req, addition: ParleyAddition) => Req;
  /** The names of the tools a response called (default: OpenAI's, Anthropic's and the AI SDK's response shapes). */
  toolCalls?: (response: Res) => string[];
}

const WithParleyOptionsSchema = ParleyOptionsSchema.extend({
  inject: z.custom<unknown>((value) => typeof value === 'function', 'must be a function (request, addition) => request').optional(),
  toolCalls: z.custom<unknown>((value) => typeof value === 'function', 'must be a function (response) => tool names').optional(),
});

/**
 * Parley for any LLM call `(request) => Promise<response>`, for code that does
 * not use the AI SDK: the same behaviour as parleyMiddleware. Before each
 * call the addendum (and the reminder after a chat-only turn) and the new chat
 * go into the request; after it succeeds the chat is taken and the cursor
 * moves; a call that throws leaves the chat for the next one.
 */
export function withParley<Req, Res>(llmCall: (request: Req) => Promise<Res>, options: WithParleyOptions<Req, Res>): ((request: Req) => Promise<Res>) & { close(): void } {
  if (typeof llmCall !== 'function') throw new ParleyError('INVALID_INPUT', 'Invalid llmCall: withParley wraps a function (request) => Promise<response>; pass your LLM call.', { field: 'llmCall' });
  parleyOptions(options, WithParleyOptionsSchema);
  const { inject = injectIntoMessages, toolCalls = toolCallsOf, ...parley } = options;
  const session = new ParleySession(parley);
  // With the default inject, chat given to earlier calls stays in the later calls of their conversation (see GivenChat).
  const memory = inject === injectIntoMessages ? new GivenChat<unknown>((message) => JSON.stringify(message), messageAnswer) : undefined;
  let chatOnlyBefore = false;
  const wrapped = async (request: Req): Promise<Res> => {
    const call = await session.prepare(chatOnlyBefore);
    const addition: ParleyAddition = call.chat
      ? { ...(call.system ? { system: call.system } : {}), ...(call.prelude ? { prelude: call.prelude } : {}), ...(call.batch ? { chat: call.batch.text } : {}) }
      : { withoutTools: session.isChatTool, handle: parley.handle };
    const conversation = memory && call.chat ? messagesOf(request) : undefined;
    const restored = conversation ? ({ ...request, messages: memory!.restore(conversation) } as Req) : request;
    // Nothing to add (the hub did not answer): the request goes out as it came.
    const sent = Object.keys(addition).length === 0 ? restored : inject(restored, addition);
    const response = await llmCall(sent);
    chatOnlyBefore = chatOnly(toolCalls(response), session.isChatTool);
    if (conversation && call.batch) memory!.remember(conversation, chatMessage(call.batch.text), answerSignature(response));
    await session.commit(call.batch);
    return response;
  };
  return Object.assign(wrapped, { close: () => session.close() });
}

type Message = { role?: unknown; content?: unknown };

/** The default `inject`: the chat-completions shape most LLM APIs share. */
export function injectIntoMessages<Req>(request: Req, addition: ParleyAddition): Req {
  const body = request as { messages?: unknown; system?: unknown; tools?: unknown; model?: unknown; tool_choice?: unknown };
  const { withoutTools } = addition;
  if (withoutTools && body !== null && typeof body === 'object' && Array.isArray(body.tools)) {
    const forced = toolName(body.tool_choice);
    if (withoutTools(forced)) throw forcedChatTool('tool_choice', forced, addition.handle ?? 'this participant');
    return { ...body, tools: (body.tools as unknown[]).filter((t) => !withoutTools(toolName(t))) } as Req;
  }
  if (addition.system === undefined && addition.chat === undefined) return request;
  if (body === null || typeof body !== 'object' || !Array.isArray(body.messages)) {
    throw new ParleyError('INVALID_INPUT', 'Invalid request: withParley found no messages array in it; pass options.inject to say where Parley\'s text goes.', { field: 'request.messages' });
  }
  const messages = [...(body.messages as Message[])];
  const out: Record<string, unknown> = { ...body };
  if (addition.system || addition.prelude) {
    const around = (own: string): string => [addition.prelude, own, addition.system].filter(Boolean).join('\n\n');
    const first = messages[0];
    const leading = first && (first.role === 'system' || first.role === 'developer') && typeof first.content === 'string';
    if (typeof body.system === 'string') out.system = around(body.system);
    else if (Array.isArray(body.system)) {
      out.system = [
        ...(addition.prelude ? [{ type: 'text', text: addition.prelude }] : []),
        ...(body.system as unknown[]),
        ...(addition.system ? [{ type: 'text', text: addition.system }] : []),
      ];
    } else if (leading) messages[0] = { ...first, content: around(first.content as string) };
    // Anthropic's API takes the system prompt beside the messages, never among them.
    else if (anthropicModel(body)) out.system = around('');
    else messages.unshift({ role: 'system', content: around('') });
  }
  if (addition.chat) messages.push(chatMessage(addition.chat));
  out.messages = messages;
  return out as Req;
}

/**
 * What identifies a model's answer, in a response (OpenAI's `choices[0].message`,
 * Anthropic's message) and in the assistant message it becomes in the next
 * request: its tool call ids, else its text.
 */
function answerSignature(value: unknown): string {
  const v = value as { choices?: Array<{ message?: unknown }> } | null;
  const message = (Array.isArray(v?.choices) ? v.choices[0]?.message : value) as { content?: unknown; tool_calls?: unknown } | null | undefined;
  const ids: unknown[] = [];
  if (Array.isArray(message?.tool_calls)) for (const call of message.tool_calls as Array<{ id?: unknown }>) ids.push(call?.id);
  const content = message?.content;
  if (Array.isArray(content)) for (const part of content as Array<{ type?: unknown; id?: unknown }>) if (part?.type === 'tool_use') ids.push(part.id);
  if (ids.length > 0) return `tools:${ids.map(String).join(',')}`;
  if (typeof content === 'string') return `text:${content}`;
  if (Array.isArray(content)) return `text:${(content as Array<{ type?: unknown; text?: unknown }>).map((p) => (p?.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('')}`;
  return 'text:';
}

/** A conversation message's answer signature, for an assistant message only. */
function messageAnswer(message: unknown): string | undefined {
  return (message as { role?: unknown } | null)?.role === 'assistant' ? answerSignature(message) : undefined;
}

/** The chat block as the default inject puts it last. */
function chatMessage(chat: string): Message {
  return { role: 'user', content: chat };
}

/** A request's messages array, if it has one. */
function messagesOf(request: unknown): unknown[] | undefined {
  const messages = request !== null && typeof request === 'object' ? (request as { messages?: unknown }).messages : undefined;
  return Array.isArray(messages) ? messages : undefined;
}

/** A request for one of Anthropic's models (`claude-…`), which wants its system prompt top-level. */
function anthropicModel(body: { model?: unknown }): boolean {
  return typeof body.model === 'string' && /^claude/i.test(body.model);
}

/**
 * The tool a request's tool or tool_choice names: OpenAI's `{ type: 'function',
 * function: { name } }`, Anthropic's and most others' `{ name }` (a tool_choice
 * such as "auto" names none).
 */
function toolName(value: unknown): string {
  if (value === null || typeof value !== 'object') return '';
  const tool = value as { name?: unknown; function?: { name?: unknown } };
  const name = tool.function?.name ?? tool.name;
  return typeof name === 'string' ? name : '';
}

/** Tool names a response called: OpenAI (`choices[0].message.tool_calls`), Anthropic (`content[]` of type tool_use), the AI SDK (`toolCalls`). */
export function toolCallsOf(response: unknown): string[] {
  if (response === null || typeof response !== 'object') return [];
  const r = response as { choices?: Array<{ message?: { tool_calls?: Array<{ function?: { name?: unknown } }> } }>; content?: unknown; toolCalls?: unknown };
  const names: unknown[] = [];
  for (const call of r.choices?.[0]?.message?.tool_calls ?? []) names.push(call.function?.name);
  if (Array.isArray(r.content)) for (const part of r.content as Array<{ type?: unknown; name?: unknown }>) if (part?.type === 'tool_use') names.push(part.name);
  if (Array.isArray(r.toolCalls)) for (const call of r.toolCalls as Array<{ toolName?: unknown }>) names.push(call?.toolName);
  return names.filter((name): name is string => typeof name === 'string');
}
