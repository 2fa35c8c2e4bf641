import { participantCommand } from './rest-command.js';

/**
 * How much of a thread reaches your own inbox: subscribe, unsubscribe, and
 * quiet (the MCP tools chat_subscribe, chat_unsubscribe and chat_mute). They
 * change only the caller's subscription, unlike `parley mute`, the steering
 * control that silences someone else.
 */
interface ThreadAnswer {
  id: string;
  kind: string;
  name: string;
  with?: string;
}

/** The thread as the CLI shows it ("#plan", "@bob", "eviction policy"). */
function shown(thread: ThreadAnswer): string {
  if (thread.kind === 'channel') return `#${thread.name}`;
  return thread.with ? `@${thread.with}` : `"${thread.name}"`;
}

/** The thread as it can be typed back in a shell: a "#" would start a comment, and a title may hold spaces. */
function typed(thread: ThreadAnswer): string {
  if (thread.kind === 'channel') return thread.name;
  return thread.with ? `@${thread.with}` : thread.id;
}

export const subscribe = participantCommand(async (api, [thread]) => {
  const t = await api.subscribe(thread!);
  return { json: t, text: `subscribed to ${shown(t)}: its messages reach your inbox.` };
});

export const unsubscribe = participantCommand(async (api, [thread]) => {
  const t = await api.unsubscribe(thread!);
  return { json: t, text: `unsubscribed from ${shown(t)}: its messages no longer reach your inbox; mentions of you still do ("parley subscribe ${typed(t)}" undoes it).` };
});

export const quiet = participantCommand(async (api, [thread]) => {
  const t = await api.mute(thread!);
  return { json: t, text: `quieted ${shown(t)} for you: its messages stay in your inbox at low priority and never wake you ("parley subscribe ${typed(t)}" undoes it).` };
});
