import type { ClientName } from './spec.js';

/**
 * The agent CLIs `parley hook` serves, each in its own documented words: the
 * events it is installed on (kebab-case, or the client's own spelling) and
 * what each means to the hub. Sources:
 * Claude Code https://code.claude.com/docs/en/hooks, Codex
 * https://developers.openai.com/codex/hooks, Gemini CLI docs/hooks/reference.md,
 * Cursor https://cursor.com/docs/hooks. Both `parley hook` and `parley install`
 * read them, so what is installed and what is served cannot drift apart.
 */
export type HubEvent = 'session-start' | 'prompt' | 'tool' | 'stop' | 'session-end';

export interface ClientEvent {
  /** The client's own name of the event (what its hook config and stdin call it). */
  documented: string;
  hub: HubEvent;
}

const COMMON = {
  'session-start': { documented: 'SessionStart', hub: 'session-start' },
  'user-prompt-submit': { documented: 'UserPromptSubmit', hub: 'prompt' },
  'post-tool-use': { documented: 'PostToolUse', hub: 'tool' },
  stop: { documented: 'Stop', hub: 'stop' },
  'session-end': { documented: 'SessionEnd', hub: 'session-end' },
} as const satisfies Record<string, ClientEvent>;

export const CLIENT_EVENTS: Record<ClientName, Record<string, ClientEvent>> = {
  claude: COMMON,
  // Codex documents no SessionEnd hook.
  codex: { 'session-start': COMMON['session-start'], 'user-prompt-submit': COMMON['user-prompt-submit'], 'post-tool-use': COMMON['post-tool-use'], stop: COMMON.stop },
  gemini: {
    'session-start': { documented: 'SessionStart', hub: 'session-start' },
    'before-agent': { documented: 'BeforeAgent', hub: 'prompt' },
    'after-tool': { documented: 'AfterTool', hub: 'tool' },
    // Gemini's stop: it has stop_hook_active, and a deny sends the reason back as a new prompt.
    'after-agent': { documented: 'AfterAgent', hub: 'stop' },
    'session-end': { documented: 'SessionEnd', hub: 'session-end' },
  },
  // Cursor's beforeSubmitPrompt documents no way to add context, so it has no prompt event here.
  cursor: {
    'session-start': { documented: 'sessionStart', hub: 'session-start' },
    'post-tool-use': { documented: 'postToolUse', hub: 'tool' },
    stop: { documented: 'stop', hub: 'stop' },
    'session-end': { documented: 'sessionEnd', hub: 'session-end' },
  },
};

export function isClient(name: string): name is ClientName {
  return Object.hasOwn(CLIENT_EVENTS, name);
}

/** The event a client's hook was installed on, by its kebab-case name or the client's exact spelling. */
export function eventOf(client: ClientName, name: string): (ClientEvent & { name: string }) | undefined {
  const events = CLIENT_EVENTS[client];
  if (Object.hasOwn(events, name)) return { name, ...events[name]! };
  const found = Object.entries(events).find(([, event]) => event.documented === name);
  return found ? { name: found[0], ...found[1] } : undefined;
}
