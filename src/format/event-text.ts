import type { ParleyEvent, RequestContent, ResponseContent } from '../schema/event.js';

/**
 * Events as sentences people read: "@alice created #general", "@bob answered
 * 4F7K2Q: Completed — shipped". The CLI (inbox, read, history, tail) and the
 * hub's Markdown export say the same thing the same way. Plain text, no
 * runtime dependency, so the CLI can load it without the hub.
 *
 * Events name participants by id; `handleOf` turns an id into a handle (and
 * returns the id when it does not know it).
 */
export type HandleOf = (participantId: string) => string;

/** How many trailing characters of a ULID request id are shown as its short id. */
export const SHORT_REQUEST_ID_LENGTH = 6;
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/**
 * The short id shown for a request. A ULID starts with its timestamp, so
 * requests made close together share their first characters; its last
 * characters are the random (or, within one millisecond, incremented) part,
 * which tells them apart. The hub accepts this end (or any unambiguous start
 * or end) wherever a request id is taken. Ids chosen by the sender are shown whole.
 */
export function shortRequestId(requestId: string): string {
  return ULID.test(requestId) ? requestId.slice(-SHORT_REQUEST_ID_LENGTH) : requestId;
}

/** The sentence for an event, without its author: the caller puts "@author" before it. */
export function describeEvent(event: ParleyEvent, handleOf: HandleOf): string {
  if (typeof event.content === 'string') return event.content;
  const content = (event.content ?? {}) as Record<string, unknown>;
  switch (event.type) {
    case 'request':
      return describeRequest(event.content as RequestContent, event.to, handleOf);
    case 'response':
      return describeResponse(event.content as ResponseContent);
    case 'system':
      return describeSystem(content);
    case 'control':
      return describeControl(content, handleOf);
    default:
      return `sent a ${event.type} event`;
  }
}

/** One line with the author: "@alice created #general"; a message reads "@alice: text". */
export function eventSentence(event: ParleyEvent, handleOf: HandleOf): string {
  const text = describeEvent(event, handleOf);
  return event.type === 'message' ? `@${event.author}: ${text}` : `@${event.author} ${text}`;
}

/** Ids of the participants an event names beyond its author (so a caller can look up their handles first). */
export function participantIdsIn(event: ParleyEvent): string[] {
  const ids: string[] = [];
  if (event.type === 'request' && event.to !== 'all') ids.push(event.to);
  if (event.type === 'control' && event.content && typeof event.content === 'object') {
    const [kind, value] = Object.entries(event.content as Record<string, unknown>)[0] ?? [];
    if (kind === 'prod' && Array.isArray(value)) ids.push(...value.map(String));
    if ((kind === 'mute' || kind === 'unmute') && Array.isArray((value as { targets?: unknown }).targets)) {
      ids.push(...(value as { targets: unknown[] }).targets.map(String));
    }
  }
  return ids;
}

function describeRequest(request: RequestContent, to: string, handleOf: HandleOf): string {
  const params = request.params !== undefined && !isEmptyObject(request.params) ? ` ${JSON.stringify(request.params)}` : '';
  const text = request.text ? ` — ${request.text}` : '';
  const followUp = request.reply_to ? ` (follows up ${shortRequestId(request.reply_to)})` : '';
  return `asks @${handleOf(to)}: ${request.intent} [${shortRequestId(request.request_id)}]${followUp}${text}${params}`;
}

function describeResponse(response: ResponseContent): string {
  const text = response.text ? ` — ${response.text}` : '';
  const result = response.result !== undefined ? ` ${JSON.stringify(response.result)}` : '';
  return `answered ${shortRequestId(response.request_id)}: ${response.status}${text}${result}`;
}

function describeSystem(content: Record<string, unknown>): string {
  const name = String(content.name ?? '');
  switch (content.action) {
    case 'thread.created':
      // A DM's name is its two participants' ids or handles: the sentence needs no name.
      if (content.kind === 'dm') return 'opened a direct message';
      return content.kind === 'side' ? `created side channel "${name}"` : `created #${name}`;
    case 'thread.renamed':
      return `renamed "${String(content.from ?? '')}" to "${name}"`;
    case 'side.opened':
      return `opened side channel "${String(content.title ?? '')}"`;
    case 'thread.closed':
      return `closed this side channel: ${String(content.summary ?? '')}`;
    case 'side.closed':
      return 'closed a side channel';
    default:
      return `changed the thread (${String(content.action ?? 'unknown change')})`;
  }
}

/**
 * A steering control as the rest of a sentence, in the words of what was done
 * ("muted @coder", "resumed the thread", "unpinned the thread"); the page says
 * it the same way, and the CLI and the steering tools confirm a control with it.
 */
export function describeControl(content: Record<string, unknown>, handleOf: HandleOf): string {
  const [kind, value] = Object.entries(content)[0] ?? ['control', undefined];
  const v = (value ?? {}) as Record<string, unknown>;
  const handles = (ids: unknown): string => (Array.isArray(ids) ? ids.map((id) => `@${handleOf(String(id))}`).join(', ') : '');
  switch (kind) {
    case 'mute':
      return `muted ${handles(v.targets)}`;
    case 'unmute':
      return `unmuted ${handles(v.targets)}`;
    case 'pause':
      return v.on ? 'paused the thread' : 'resumed the thread';
    case 'prod':
      return `prodded ${handles(value)}`;
    case 'done':
      return value ? 'marked the thread done' : 'reopened the thread';
    case 'ttl_seconds':
      return value === null ? 'removed the time limit' : `set a time limit of ${String(value)} s`;
    case 'discussion':
      return v.on ? `turned discussion mode on${v.allow_agent_mentions ? ' (agents may mention agents)' : ''}` : 'turned discussion mode off';
    case 'pin':
      return v.on ? 'pinned the thread' : 'unpinned the thread';
    case 'invited_auto':
      return v.on ? 'let invited participants answer without a mention' : 'stopped invited participants answering without a mention';
    case 'access': {
      // A stored control carries the signed policy and its version; a control as given (before the hub signs it) has none yet.
      const policy = (v.policy ?? {}) as { version?: unknown };
      return policy.version === undefined ? "set the channel's access policy" : `set the channel's access policy (v${String(policy.version)})`;
    }
    case 'invite':
      return `invited @${typeof v.handle === 'string' ? v.handle : handleOf(String(v.participant_id ?? ''))}`;
    default:
      return `set ${kind}`;
  }
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}
