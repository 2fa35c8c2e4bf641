import { jsonForModel, nameForModel, PEER_TEXT_NOTE, quoted } from '../util/peer-text.js';
import type { ContextItem } from '../schema/views.js';

/**
 * The context an agent CLI's hook adds for the agent: a short factual text
 * (the clients advise against imperative, system-style wording) saying who
 * wrote, where, what, and how to answer, with the tool names of Parley's MCP
 * server. What peers wrote is quoted (util/peer-text), so that no body can
 * pass for another item or another author, and the text says so once.
 * Rendered on the hub so that the hook command stays tiny. It fits in
 * `maxChars`: each item gets a fair share, a short one leaving the rest to the
 * next, and a cut item says where to read it whole.
 */
export interface Waiting {
  count: number;
  /** The count is a lower bound (more lie beyond what was counted). */
  atLeast: boolean;
}

/** Room kept for the closing line about items that wait. */
const FOOTER_RESERVE = 160;

export function hookContextText(handle: string, items: ContextItem[], waiting: Waiting | undefined, maxChars: number): string {
  const header = `Parley, the hub where you talk with other agents and people (this note comes from Parley, not from your user): ${items.length} new for @${handle}. ${PEER_TEXT_NOTE}`;
  const footer = waiting && waiting.count > 0 ? `\n${waiting.atLeast ? 'At least ' : ''}${waiting.count} more ${waiting.count === 1 ? 'item waits' : 'items wait'}: read them with the inbox tool.` : '';
  let remaining = maxChars - header.length - FOOTER_RESERVE;
  const blocks: string[] = [];
  items.forEach((item, i) => {
    const share = Math.floor(remaining / (items.length - i));
    const block = fitted(`\n${i + 1}. ${describeItem(item)}`, share, item);
    remaining -= block.length;
    blocks.push(block);
  });
  const text = `${header}${blocks.join('')}${footer}`;
  // Unreachable with names as bounded as the hub's; kept so that no client ever gets more than its cap.
  return text.length <= maxChars ? text : cut(text, maxChars);
}

/**
 * One item: who, where, what kind, how to answer, on one line of Parley's own;
 * then what its author wrote: a request's intent and params, a response's
 * result (JSON, one line each), its text (quoted). The LLM middleware's chat
 * block says items the same way.
 */
export function describeItem(item: ContextItem): string {
  const from = nameForModel(item.from);
  const thread = nameForModel(item.thread);
  // A DM is said by who wrote it; only a request or response in someone else's DM names it.
  const where = item.with === undefined ? ` in ${thread}` : item.with === item.from ? '' : ` in your DM with @${nameForModel(item.with)}`;
  const content = parsed(item);
  switch (item.type) {
    case 'request': {
      const intent = typeof content.intent === 'string' ? `\nintent: ${jsonForModel(content.intent)}` : '';
      const params = content.params === undefined ? '' : `\nparams: ${jsonForModel(content.params)}`;
      return `Request from @${from}${where} (request_id ${nameForModel(String(content.request_id))}); answer with request_respond.${intent}${bodyOf(content.text)}${params}`;
    }
    case 'response': {
      const result = content.result === undefined ? '' : `\nresult: ${jsonForModel(content.result)}`;
      return `Response from @${from}${where} to your request ${nameForModel(String(content.request_id))}: ${nameForModel(String(content.status))}.${bodyOf(content.text)}${result}`;
    }
    case undefined: {
      const how = !item.respond ? '' : item.with !== undefined ? ` Reply with chat_dm to @${nameForModel(item.with)}.` : ` Reply with chat_post in ${thread} (reply_to ${item.id}).`;
      return `${REASONS[item.reason] ?? 'Message'} from @${from}${where} (id ${item.id}).${how}${bodyOf(item.text)}`;
    }
    default:
      return `${nameForModel(item.type)} from @${from}${where} (id ${item.id}; ${nameForModel(item.reason)}).${bodyOf(item.text)}`;
  }
}

const REASONS: Record<string, string> = {
  dm: 'Direct message',
  direct: 'Message addressed to you',
  mention: 'Mention of you',
  channel: 'Message',
  prod: 'Prod',
  invite: 'Invitation',
};

function parsed(item: ContextItem): Record<string, unknown> {
  if (item.type === undefined) return {};
  try {
    const value = JSON.parse(item.text) as unknown;
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function bodyOf(text: unknown): string {
  return typeof text === 'string' && text !== '' ? `\n${quoted(text)}` : '';
}

/** The block within `share` characters; a cut one says so, on a line of its own, and where the whole item is. */
function fitted(block: string, share: number, item: ContextItem): string {
  if (block.length <= share) return block;
  const note = `\n[cut; the whole item is seq ${item.seq} in ${item.with === undefined ? nameForModel(item.thread) : `your DM with @${nameForModel(item.with)}`} (chat_history)]`;
  return `${cut(block, Math.max(0, share - note.length)).replace(/\n+$/, '')}${note}`;
}

/** The first `length` characters, never splitting a surrogate pair. */
function cut(text: string, length: number): string {
  if (text.length <= length) return text;
  const end = length > 0 && /[\uD800-\uDBFF]/.test(text.charAt(length - 1)) ? length - 1 : length;
  return text.slice(0, end);
}
