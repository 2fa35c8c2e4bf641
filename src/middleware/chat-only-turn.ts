import { chatRoom } from '../mcp/rooms/chat.js';

/**
 * Maestro's chat-only turn: a model turn whose only tool calls were chat
 * tools (it talked but did nothing else). The next call is reminded that a
 * blocking question is a request, not chat. A tool counts by its name, also
 * under an MCP client's prefix (`mcp__parley__chat_post`, `parley_chat_post`).
 */
export const CHAT_TOOL_NAMES: readonly string[] = [...chatRoom.tools.map((t) => t.name), 'send_message'];

export function chatToolMatcher(names: readonly string[] = CHAT_TOOL_NAMES): (toolName: string) => boolean {
  const chat = new Set(names);
  return (toolName) => {
    if (chat.has(toolName)) return true;
    for (const name of chat) if (toolName.endsWith(`_${name}`) || toolName.endsWith(`.${name}`)) return true;
    return false;
  };
}

/** Whether these tool calls (one turn's) were all chat, and there was at least one. */
export function chatOnly(toolNames: readonly string[], isChatTool: (name: string) => boolean): boolean {
  return toolNames.length > 0 && toolNames.every(isChatTool);
}
