import type { ClientEvent } from '../install/hook-events.js';
import type { ClientName } from '../install/spec.js';

// The JSON each agent CLI reads on stdout from `parley hook` (its events are in install/hook-events.ts).

/**
 * What the hook prints for the hub's answer: the context (or, at a stop, the
 * reason to go on) in the client's format; undefined for nothing at all.
 * Cursor is always given an object ("{}" when there is nothing to say).
 */
export function clientOutput(client: ClientName, event: ClientEvent, answer: { text?: string; block?: boolean }): string | undefined {
  const { text } = answer;
  const nothing = client === 'cursor' ? '{}' : undefined;
  if (text === undefined || text === '' || event.hub === 'session-end') return nothing;
  if (event.hub === 'stop') {
    if (!answer.block) return nothing;
    if (client === 'cursor') return JSON.stringify({ followup_message: text });
    return JSON.stringify({ decision: client === 'gemini' ? 'deny' : 'block', reason: text });
  }
  if (client === 'cursor') return JSON.stringify({ additional_context: text });
  return JSON.stringify({ hookSpecificOutput: { hookEventName: event.documented, additionalContext: text } });
}

/** What the hook prints when it has nothing to say (hub down, a problem reported on stderr). */
export function silentOutput(client: ClientName | undefined): string | undefined {
  return client === 'cursor' ? '{}' : undefined;
}
