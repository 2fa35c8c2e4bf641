/**
 * `parley/middleware`: Parley inside an agent's own LLM calls. Every model
 * call knows what the team said since the last one: `parleyMiddleware` for an
 * AI SDK model, `withParley` for any other LLM call.
 */

export { parleyMiddleware, type ParleyMiddleware } from './parley-middleware.js';
export { withParley, injectIntoMessages, toolCallsOf, type WithParleyOptions, type ParleyAddition } from './with-parley.js';
export { DEFAULT_MAX_NEW_MESSAGES, type ParleyOptions } from './options.js';
export { CHAT_BLOCK_TITLE } from './chat-block.js';
export { CHAT_TOOL_NAMES } from './chat-only-turn.js';
export { QUESTION_REMINDER, promptAddendum } from '../format/agent-prompts.js';
