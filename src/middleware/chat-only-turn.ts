/**
 * The chat-only turn: a model turn whose only tool calls were chat tools (it
 * talked but did nothing else). The next call is reminded that a blocking
 * question is a request, not chat. A tool counts by its name, also under the
 * prefix an MCP client gives Parley's server (`mcp__parley__chat_post`,
 * `parley_chat_post`, `parley.chat_post`) — but not another server's tool of a
 * similar name (`email_send_message`, `mcp__slack__chat_post`): those are the
 * agent's work, and an excluded participant keeps them.
 */

import { chatRoom } from '../tools/index.js';

/** Parley's chat tools by name: the chat room's and the compat room's send_message. */
export const CHAT_TOOL_NAMES: readonly string[] = [...chatRoom.tools.map((t) => t.name), 'send_message'];

/** The prefixes MCP clients put before a tool of the server installed as "parley". */
const PARLEY_PREFIX = /^(?:mcp__)?parley(?:__|_|\.|-)/i;

export function chatToolMatcher(names: readonly string[] = CHAT_TOOL_NAMES): (toolName: string) => boolean {
  const chat = new Set(names);
  return (toolName) => chat.has(toolName) || chat.has(toolName.replace(PARLEY_PREFIX, ''));
}

/** Whether these tool calls (one turn's) were all chat, and there was at least one. */
export function chatOnly(toolNames: readonly string[], isChatTool: (name: string) => boolean): boolean {
  return toolNames.length > 0 && toolNames.every(isChatTool);
}
