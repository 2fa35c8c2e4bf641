/**
 * The block of new chat a model call is given ("Recent chat messages"): each
 * item with its time, author, where it was said, how to answer, and its text
 * (quoted), oldest first; then how many more wait, when the call's share was
 * cut at maxNewMessages.
 */

import { describeItem } from '../format/context-text.js';
import type { ContextItem } from '../schema/views.js';
import { nameForModel, PEER_TEXT_NOTE } from '../util/peer-text.js';

/** The block's first words: code reading a request finds the block by them. */
export const CHAT_BLOCK_TITLE = 'Recent chat messages';

export function chatBlock(items: readonly ContextItem[], waiting?: { count: number; atLeast?: boolean }): string {
  const lines = [`${CHAT_BLOCK_TITLE} (from Parley, new since your last model call). ${PEER_TEXT_NOTE}`];
  for (const item of items) lines.push(`[${clock(item.ts)}] ${describeItem(item)}`);
  if (waiting && waiting.count > 0) {
    const count = `${waiting.atLeast ? 'At least ' : ''}${waiting.count} more`;
    lines.push(`${count} ${waiting.count === 1 ? 'message waits' : 'messages wait'}; ${waiting.count === 1 ? 'it comes' : 'they come'} with your next model call.`);
  }
  return lines.join('\n');
}

/** "14:03:07 UTC" from an ISO time: the date is today's in nearly every case, and the model needs the order. */
function clock(ts: string): string {
  const time = /T(\d\d:\d\d:\d\d)/.exec(ts)?.[1];
  return time === undefined ? nameForModel(ts) : `${time} UTC`;
}
