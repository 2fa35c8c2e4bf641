import type { Command } from './command.js';

/**
 * How much of a thread reaches your own inbox: subscribe, unsubscribe, and
 * quiet (the MCP tools chat_subscribe, chat_unsubscribe and chat_mute). They
 * change only the caller's subscription, unlike `parley mute`, the steering
 * control that silences someone else.
 */
const enc = encodeURIComponent;

type SubscriptionState = 'subscribed' | 'unsubscribed' | 'muted';

interface ThreadAnswer {
  id: string;
  kind: string;
  name: string;
  with?: string;
  subscription?: SubscriptionState;
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

function subscription(state: SubscriptionState, usage: string, summary: string, sentence: (thread: ThreadAnswer) => string): Command {
  return {
    usage,
    summary,
    positionals: 1,
    async run(call, [thread]) {
      const answer = await call<ThreadAnswer>('PUT', `/threads/${enc(thread!)}/subscription`, { state });
      return { json: answer, text: sentence(answer) };
    },
  };
}

export const SUBSCRIPTION_COMMANDS: Record<string, Command> = {
  subscribe: subscription(
    'subscribed',
    'parley subscribe THREAD',
    "Subscribe yourself to a thread: its messages reach your inbox (also undoes unsubscribe and quiet)",
    (t) => `subscribed to ${shown(t)}: its messages reach your inbox.`,
  ),
  unsubscribe: subscription(
    'unsubscribed',
    'parley unsubscribe THREAD',
    "Unsubscribe yourself from a thread: its messages stop reaching your inbox (mentions of you still do)",
    (t) => `unsubscribed from ${shown(t)}: its messages no longer reach your inbox; mentions of you still do ("parley subscribe ${typed(t)}" undoes it).`,
  ),
  quiet: subscription(
    'muted',
    'parley quiet THREAD',
    'Quiet a thread for yourself: its messages stay in your inbox at low priority and never wake you (to silence someone else, see "parley mute")',
    (t) => `quieted ${shown(t)} for you: its messages stay in your inbox at low priority and never wake you ("parley subscribe ${typed(t)}" undoes it).`,
  ),
};
