import type { LanguageModelMiddleware } from 'ai';
import type { ChatBatch } from './chat-feed.js';
import { chatOnly } from './chat-only-turn.js';
import { GivenChat } from './given-chat.js';
import { forcedChatTool } from './forced-chat-tool.js';
import { parleyOptions, type ParleyOptions } from './options.js';
import { ParleySession } from './parley-session.js';

/** The AI SDK's call options and prompt, as its middleware receives them. */
type CallOptions = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params'];
type Prompt = CallOptions['prompt'];
type StreamPart = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapStream']>>>['stream'] extends ReadableStream<infer P> ? P : never;

export type ParleyMiddleware = LanguageModelMiddleware & {
  /** Closes the middleware's connections to the hub. */
  close(): void;
};

/**
 * Parley for an AI SDK model (`wrapLanguageModel({ model, middleware:
 * parleyMiddleware({ handle }) })`). Before every model call — each step of a
 * tool loop, each retry — it adds Parley's addendum to the system prompt (and,
 * after a chat-only turn, opens it with the reminder) and the agent's new chat as the
 * last message. Only after the call succeeds (a stream: once it finished
 * without error) is that chat taken on the hub and the cursor moved; a call
 * that fails leaves it for the next one. Put it last in a list of
 * middlewares, next to the model, so that the chat is the last thing added.
 * A call with `providerOptions: { parley: { skip: true } }` passes untouched.
 */
export function parleyMiddleware(options: ParleyOptions): ParleyMiddleware {
  const session = new ParleySession(parleyOptions(options));
  // What each call was given, by the call options the model receives (the same object reaches the wrap hooks).
  const given = new WeakMap<CallOptions, { batch: ChatBatch; conversation: Prompt; block: Prompt[number] }>();
  // Chat given to earlier calls, put back in the later calls of their conversation (the next steps of a tool loop).
  const memory = new GivenChat<Prompt[number]>(
    (message) => JSON.stringify(message),
    (message) => (message.role === 'assistant' ? answerSignature(message.content) : undefined),
  );
  const taken = async (call: { batch: ChatBatch; conversation: Prompt; block: Prompt[number] } | undefined, answer: string): Promise<void> => {
    if (!call) return;
    memory.remember(call.conversation, call.block, answer);
    await session.commit(call.batch);
  };
  return {
    specificationVersion: 'v3',
    async transformParams({ params }) {
      // A call Parley already handles itself (the agent loop's, its subagents', its relevance checks') passes as it came.
      if (params.providerOptions?.parley?.skip === true) return params;
      const call = await session.prepare(chatOnly(lastTurnToolNames(params.prompt), session.isChatTool));
      if (!call.chat) {
        // An excluded kind sees neither chat nor chat tools.
        if (params.toolChoice?.type === 'tool' && session.isChatTool(params.toolChoice.toolName)) throw forcedChatTool('toolChoice', params.toolChoice.toolName, options.handle);
        return params.tools ? { ...params, tools: params.tools.filter((t) => !session.isChatTool(t.name)) } : params;
      }
      const restored = memory.restore(params.prompt);
      const prompt = call.system === undefined ? restored : withSystemText(restored, call.system, call.prelude);
      const next: CallOptions = { ...params, prompt };
      if (call.batch) {
        const block: Prompt[number] = { role: 'user', content: [{ type: 'text', text: call.batch.text }] };
        prompt.push(block);
        given.set(next, { batch: call.batch, conversation: params.prompt, block });
      }
      return next;
    },
    async wrapGenerate({ doGenerate, params }) {
      const result = await doGenerate();
      await taken(given.get(params), answerSignature(result.content));
      return result;
    },
    async wrapStream({ doStream, params }) {
      const { stream, ...rest } = await doStream();
      const call = given.get(params);
      if (!call) return { stream, ...rest };
      let finished = false;
      let failed = false;
      // The answer as its message will hold it: tool calls, else the text.
      const answer: Array<{ type: 'text'; text: string } | { type: 'tool-call'; toolCallId: string }> = [];
      const watched = stream.pipeThrough(
        new TransformStream<StreamPart, StreamPart>({
          transform(part, controller) {
            if (part.type === 'text-delta') answer.push({ type: 'text', text: part.delta });
            if (part.type === 'tool-call') answer.push({ type: 'tool-call', toolCallId: part.toolCallId });
            if (part.type === 'finish') finished = true;
            // A provider reports a failure as an error part, or only as the reason it finished.
            if (part.type === 'error' || (part.type === 'finish' && part.finishReason.unified === 'error')) failed = true;
            controller.enqueue(part);
          },
          // Runs only when the stream ends normally: a cancelled or broken stream commits nothing.
          async flush() {
            if (finished && !failed) await taken(call, answerSignature(answer));
          },
        }),
      );
      return { stream: watched, ...rest };
    },
    close: () => session.close(),
  };
}

/**
 * What identifies a model's answer, in a call's result and in the assistant
 * message it becomes in the next call: its tool call ids (unique per call),
 * else its text.
 */
function answerSignature(parts: ReadonlyArray<{ type: string; text?: string; toolCallId?: string }>): string {
  const ids = parts.flatMap((part) => (part.type === 'tool-call' && part.toolCallId ? [part.toolCallId] : []));
  if (ids.length > 0) return `tools:${ids.join(',')}`;
  return `text:${parts.map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('')}`;
}

/** The tools the last assistant message called (the turn before this call). */
function lastTurnToolNames(prompt: Prompt): string[] {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i];
    if (message?.role !== 'assistant') continue;
    return message.content.flatMap((part) => (part.type === 'tool-call' ? [part.toolName] : []));
  }
  return [];
}

/**
 * The prompt with `text` at the end of its leading system message and
 * `prelude` at its start (one is put first when there is none: providers take
 * a single system prompt).
 */
function withSystemText(prompt: Prompt, text: string, prelude: string | undefined): Prompt {
  const copy = [...prompt];
  const first = copy[0];
  const own = first?.role === 'system' ? first.content : '';
  const content = [prelude, own, text].filter(Boolean).join('\n\n');
  if (first?.role === 'system') copy[0] = { ...first, content };
  else copy.unshift({ role: 'system', content });
  return copy;
}
