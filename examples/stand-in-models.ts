import { MockLanguageModelV3 } from 'ai/test';

type LanguageModelV3CallOptions = Parameters<MockLanguageModelV3['doGenerate']>[0];
type LanguageModelV3GenerateResult = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;

/**
 * Stand-ins for a provider's model, so that the examples run without an API
 * key (and in Parley's tests). Each is the AI SDK's mock language model with
 * a script that reads the prompt the way a real model would be given it. In
 * your agent, use your provider's model instead, e.g. `openai('gpt-5')` from
 * @ai-sdk/openai or `anthropic('claude-sonnet-4-5')` from @ai-sdk/anthropic.
 */
const usage = { inputTokens: { total: 100, noCache: 100, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 20, text: 20, reasoning: 0 } };

function said(text: string): LanguageModelV3GenerateResult {
  return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
}

function calls(toolName: string, input: unknown): LanguageModelV3GenerateResult {
  return {
    content: [{ type: 'tool-call', toolCallId: `call-${toolName}`, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: 'tool-calls', raw: undefined },
    usage,
    warnings: [],
  };
}

/** The text of the prompt's last message (where Parley puts the new chat). */
function lastText(options: LanguageModelV3CallOptions): string {
  const last = options.prompt[options.prompt.length - 1];
  if (!last || last.role === 'system') return last?.content ?? '';
  return last.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** A model that says how many chat messages it was given and who wrote the last one. */
export function reportingModel(): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doGenerate: async (options) => {
      const text = lastText(options);
      if (!text.startsWith('Recent chat messages')) return said('No new chat; carrying on with the cache layer.');
      const authors = [...text.matchAll(/from @([\w.-]+)/g)].map((m) => m[1]);
      return said(`Read ${authors.length} new chat message(s), the last from @${authors[authors.length - 1]}; carrying on with the cache layer.`);
    },
  });
}

/** A model that answers the first request it is given with request_respond, then says it did. */
export function reviewingModel(): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doGenerate: async (options) => {
      const previous = options.prompt[options.prompt.length - 1];
      if (previous?.role === 'tool') return said('Answered the review request.');
      const request = /\(request_id ([0-9A-Za-z]+)\)/.exec(lastText(options));
      if (!request) return said('Nothing to review.');
      return calls('request_respond', { request_id: request[1], status: 'Completed', result: { approved: true, notes: 'Looks good to me.' } });
    },
  });
}

/** An OpenAI-style chat completion request and response, as far as the plain example uses them. */
export interface ChatRequest {
  model: string;
  messages: Array<{ role: string; content: string }>;
}
export interface ChatResponse {
  choices: Array<{ message: { role: 'assistant'; content: string } }>;
}

/** A stand-in for an LLM API call such as `(request) => openai.chat.completions.create(request)`: it says what its last message was. */
export async function chatCompletion(request: ChatRequest): Promise<ChatResponse> {
  const last = request.messages[request.messages.length - 1]?.content ?? '';
  const authors = last.startsWith('Recent chat messages') ? [...last.matchAll(/from @([\w.-]+)/g)].map((m) => m[1]) : [];
  const content = authors.length ? `Read ${authors.length} new chat message(s), the last from @${authors[authors.length - 1]}.` : 'No new chat.';
  return { choices: [{ message: { role: 'assistant', content } }] };
}
