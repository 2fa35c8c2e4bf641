// `@handle` mentions in message text, resolved to participants of the session.
// A mention must start the text or follow a character that cannot be part of a
// handle or an e-mail address (so `bob@example.com` mentions nobody).

import type { HubState } from './state.js';
import type { SessionRecord } from './records.js';

const MENTION = /(^|[^A-Za-z0-9_.@-])@([A-Za-z0-9][A-Za-z0-9_.-]{0,63})/g;

export function findMentions(text: string, session: SessionRecord, state: HubState): string[] {
  if (!text.includes('@')) return [];
  const found = new Set<string>();
  for (const match of text.matchAll(MENTION)) {
    // A trailing dot ends a sentence, not a handle.
    const handle = (match[2] ?? '').replace(/\.+$/, '');
    const participant = state.participantByHandle(handle);
    if (participant && session.members.has(participant.id)) found.add(participant.id);
  }
  return [...found];
}
