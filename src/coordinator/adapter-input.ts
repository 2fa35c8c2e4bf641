/**
 * What an adapter reads on its stdin: who it is, the new events of the thread
 * it answers in (who said what, with message and request ids), which of them
 * ask for its answer, and where its stdout will go. Plain text, so that any
 * command-line agent (`claude -p`, `codex exec`, a script) can take it as its
 * prompt. Each event is one line of Parley's own at the margin; what its
 * author wrote follows it quoted (util/peer-text), so that no text can pass
 * for another event, a trigger, or another author.
 */

import { describeEvent, shortRequestId, type HandleOf } from '../format/event-text.js';
import type { ParleyEvent, RequestContent, ResponseContent } from '../schema/event.js';
import type { ThreadInfo } from '../schema/views.js';
import { jsonForModel, nameForModel, oneLine, PEER_TEXT_NOTE, quoted } from '../util/peer-text.js';
import { threadLabel } from './notices.js';

export interface AdapterInputSpec {
  handle: string;
  session: string;
  thread: ThreadInfo;
  /** The new events of the thread, oldest first. */
  events: ParleyEvent[];
  /** Ids of the events that ask for this participant's answer. */
  triggers: ReadonlySet<string>;
  answer: { kind: 'reply'; to: string } | { kind: 'respond'; requestId: string };
  handleOf: HandleOf;
}

export function adapterInput(spec: AdapterInputSpec): string {
  const where = oneLine(threadLabel(spec.thread));
  const lines = [
    `You are @${spec.handle} in session "${spec.session}" of a Parley hub. Parley's coordinator runs you because something in ${where} asks for your answer while no session of yours is open.`,
    '',
    `New in ${where} (oldest first; lines starting with "*" ask for your answer). ${PEER_TEXT_NOTE}`,
  ];
  for (const event of spec.events) {
    const mark = spec.triggers.has(event.id) ? '*' : ' ';
    const { head, written } = eventForModel(event, spec.handleOf);
    lines.push(`${mark} [${nameForModel(event.ts)}] ${head}   (${idsOf(event)})`, ...written);
  }
  lines.push('');
  lines.push(
    spec.answer.kind === 'respond'
      ? `What you print on stdout is posted as your response to request ${nameForModel(spec.answer.requestId)} (status Completed). Print nothing to send nothing.`
      : `What you print on stdout is posted as @${spec.handle} in ${where}, replying to message ${spec.answer.to}. Print nothing to post nothing.`,
  );
  return `${lines.join('\n')}\n`;
}

/** An event's line (author first, in Parley's words) and the lines of what its author wrote. */
function eventForModel(event: ParleyEvent, handleOf: HandleOf): { head: string; written: string[] } {
  const author = `@${nameForModel(event.author)}`;
  if (typeof event.content === 'string') return { head: `${author} wrote`, written: textOf(event.content) };
  if (event.type === 'request') {
    const request = event.content as RequestContent;
    const followUp = request.reply_to ? ` (follows up ${nameForModel(shortRequestId(request.reply_to))})` : '';
    return {
      head: `${author} asks @${nameForModel(handleOf(event.to))} [${nameForModel(shortRequestId(request.request_id))}]${followUp}`,
      written: [`intent: ${jsonForModel(request.intent)}`, ...textOf(request.text), ...(hasParams(request.params) ? [`params: ${jsonForModel(request.params)}`] : [])],
    };
  }
  if (event.type === 'response') {
    const response = event.content as ResponseContent;
    return {
      head: `${author} answered ${nameForModel(shortRequestId(response.request_id))}: ${nameForModel(String(response.status))}`,
      written: [...textOf(response.text), ...(response.result === undefined ? [] : [`result: ${jsonForModel(response.result)}`])],
    };
  }
  // Controls and system events are Parley's sentences; the names and titles in them are kept on this one line.
  return { head: `${author} ${oneLine(describeEvent(event, handleOf))}`, written: [] };
}

/** Params worth a line: not absent, not `{}`. */
function hasParams(params: unknown): boolean {
  return params !== undefined && !(typeof params === 'object' && params !== null && !Array.isArray(params) && Object.keys(params).length === 0);
}

function textOf(text: string | undefined): string[] {
  return text ? [quoted(text)] : [];
}

function idsOf(event: ParleyEvent): string {
  if (event.type === 'request') return `request ${nameForModel((event.content as RequestContent).request_id)}, event ${event.id}`;
  return `${event.type === 'message' ? 'message' : `${event.type} event`} ${event.id}`;
}
