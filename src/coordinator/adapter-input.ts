import { eventSentence, type HandleOf } from '../format/event-text.js';
import type { ParleyEvent, RequestContent } from '../schema/event.js';
import type { ThreadInfo } from '../schema/views.js';
import { threadLabel } from './notices.js';

/**
 * What an adapter reads on its stdin: who it is, the new events of the thread
 * it answers in (who said what, with message and request ids), which of them
 * ask for its answer, and where its stdout will go. Plain text, so that any
 * command-line agent (`claude -p`, `codex exec`, a script) can take it as its
 * prompt.
 */
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
  const where = threadLabel(spec.thread);
  const lines = [
    `You are @${spec.handle} in session "${spec.session}" of a Parley hub. Parley's coordinator runs you because something in ${where} asks for your answer while no session of yours is open.`,
    '',
    `New in ${where} (oldest first; lines starting with "*" ask for your answer):`,
  ];
  for (const event of spec.events) {
    const mark = spec.triggers.has(event.id) ? '*' : ' ';
    lines.push(`${mark} [${event.ts}] ${eventSentence(event, spec.handleOf)}   (${idsOf(event)})`);
  }
  lines.push('');
  lines.push(
    spec.answer.kind === 'respond'
      ? `What you print on stdout is posted as your response to request ${spec.answer.requestId} (status Completed). Print nothing to send nothing.`
      : `What you print on stdout is posted as @${spec.handle} in ${where}, replying to message ${spec.answer.to}. Print nothing to post nothing.`,
  );
  return `${lines.join('\n')}\n`;
}

function idsOf(event: ParleyEvent): string {
  if (event.type === 'request') return `request ${(event.content as RequestContent).request_id}, event ${event.id}`;
  return `${event.type === 'message' ? 'message' : `${event.type} event`} ${event.id}`;
}
