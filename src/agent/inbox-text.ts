import type { ChatBatch } from '../middleware/chat-feed.js';
import { chatBlock } from '../middleware/chat-block.js';
import type { ContextItem } from '../schema/views.js';
import { subagentResultsBlock, type SubagentResult } from './subagent-result.js';

/**
 * What one turn (or one step of it) is given from the inbox, by inbox priority:
 * subagent results and High hub items (requests, DMs, mentions) first, then
 * Normal ones (channel messages, responses), each oldest first.
 */
export function byPriority(items: readonly ContextItem[]): ContextItem[] {
  return [...items].sort((a, b) => rank(a) - rank(b) || a.seq - b.seq);
}

const rank = (item: ContextItem): number => (item.priority === 'high' ? 0 : 1);

/** The user message text for these items, or undefined when there is nothing to give; `waiting`: how many more wait on the hub. */
export function inboxText(items: readonly ContextItem[], results: readonly SubagentResult[], waiting?: ChatBatch['waiting']): string | undefined {
  const parts: string[] = [];
  if (results.length > 0) parts.push(subagentResultsBlock(results));
  if (items.length > 0) parts.push(chatBlock(byPriority(items), waiting));
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}
