import type { ChatBatch } from '../middleware/chat-feed.js';
import { chatBlock } from '../middleware/chat-block.js';
import type { InjectedItem } from '../hub/injection.js';
import { subagentResultsBlock, type SubagentResult } from './subagent-result.js';

/**
 * What one turn (or one step of it) is given from the inbox, by Meerkat's
 * priority: subagent results and High hub items (requests, DMs, mentions)
 * first, then Normal ones (channel messages, responses), each oldest first.
 */
export function byPriority(items: readonly InjectedItem[]): InjectedItem[] {
  return [...items].sort((a, b) => rank(a) - rank(b) || a.seq - b.seq);
}

const rank = (item: InjectedItem): number => (item.priority === 'high' ? 0 : 1);

/** The line saying how many more wait beyond the batch, as the feed wrote it (empty when none do). */
export function waitingLine(batch: ChatBatch | undefined): string {
  if (!batch) return '';
  return batch.text.slice(chatBlock(batch.items).length).trim();
}

/** The user message text for these items, or undefined when there is nothing to give. */
export function inboxText(items: readonly InjectedItem[], results: readonly SubagentResult[], waiting = ''): string | undefined {
  const parts: string[] = [];
  if (results.length > 0) parts.push(subagentResultsBlock(results));
  if (items.length > 0) parts.push(chatBlock(byPriority(items)) + (waiting ? `\n${waiting}` : ''));
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}
