import { simulateReadableStream } from 'ai';
import type { LanguageModelMiddleware } from 'ai';
import { CHAT_BLOCK_TITLE } from '../../src/middleware/chat-block.js';
import { PEER_TEXT_NOTE } from '../../src/util/peer-text.js';

/**
 * Scripted answers for the AI SDK's mock model, and the prompt a call got in
 * a shape that tests compare exactly: one [role, text] per message, a
 * message's parts joined (tool calls and results by name).
 */
type CallOptions = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params'];
type Prompt = CallOptions['prompt'];
type GenerateResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapGenerate']>>>;
type StreamResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapStream']>>>;
type StreamPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never;

export const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A step that answers with text. */
export function textAnswer(text: string): GenerateResult {
  return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
}

/** A step that calls these tools (name and input), one call each. */
export function toolCalls(...calls: Array<[name: string, input: object]>): GenerateResult {
  return {
    content: calls.map(([toolName, input], i) => ({ type: 'tool-call' as const, toolCallId: `call-${i + 1}`, toolName, input: JSON.stringify(input) })),
    finishReason: { unified: 'tool-calls', raw: undefined },
    usage,
    warnings: [],
  };
}

/** The parts of a streamed text answer, ending with `finish` (or what replaces it). */
export function textParts(text: string, end: StreamPart[] = [{ type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage }]): StreamPart[] {
  return [{ type: 'stream-start', warnings: [] }, { type: 'text-start', id: 't1' }, { type: 'text-delta', id: 't1', delta: text }, { type: 'text-end', id: 't1' }, ...end];
}

/** A stream of these parts, at once. */
export function streamOf(parts: StreamPart[]): StreamResult {
  return { stream: simulateReadableStream({ chunks: parts, initialDelayInMs: null, chunkDelayInMs: null }) };
}

/** The prompt as [role, text] pairs: text parts joined by newlines, other parts as `<type name>`. */
export function shape(prompt: Prompt): Array<[string, string]> {
  return prompt.map((message) => {
    if (message.role === 'system') return ['system', message.content];
    const parts = message.content.map((part) => {
      if (part.type === 'text') return part.text;
      if (part.type === 'tool-call' || part.type === 'tool-result') return `<${part.type} ${part.toolName}>`;
      return `<${part.type}>`;
    });
    return [message.role, parts.join('\n')];
  });
}

/** The first line of every chat block. */
export const BLOCK_HEADER = `${CHAT_BLOCK_TITLE} (from Parley, new since your last model call). ${PEER_TEXT_NOTE}`;

/** "hh:mm:ss UTC" of an event's time, as the block writes it. */
export function clock(ts: string): string {
  return `${ts.slice(11, 19)} UTC`;
}

/** The block for these lines (each already written as the block writes an item). */
export function block(...lines: string[]): string {
  return [BLOCK_HEADER, ...lines].join('\n');
}

/** A text as the block quotes it: each line after "> ". */
function quotedLines(text: string): string {
  return text
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}

/** A DM's line in the block. */
export function dmLine(event: { id: string; ts: string }, from: string, text: string): string {
  return `[${clock(event.ts)}] Direct message from @${from} (id ${event.id}). Reply with chat_dm to @${from}.\n${quotedLines(text)}`;
}

/** A channel message's line in the block (one the agent is expected to answer). */
export function channelLine(event: { id: string; ts: string }, from: string, thread: string, text: string): string {
  return `[${clock(event.ts)}] Message from @${from} in ${thread} (id ${event.id}). Reply with chat_post in ${thread} (reply_to ${event.id}).\n${quotedLines(text)}`;
}
