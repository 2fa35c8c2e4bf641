import { CLIENT_EVENTS } from './hook-events.js';
import { hookCommand } from './command-line.js';
import type { ClientName, HookEntry, InstallContext } from './spec.js';

/**
 * The events Parley's hook is installed on, taken from what `parley hook`
 * serves for the client (so the two cannot drift apart), in its order: the
 * client's own name of the event, the hook's, whether it is the stop (which
 * gets the long timeout), and the command the client runs.
 */
export interface InstalledEvent {
  event: string;
  hook: string;
  stop: boolean;
  command: string;
}

export function installedEvents(context: InstallContext, client: ClientName): InstalledEvent[] {
  return Object.entries(CLIENT_EVENTS[client]).map(([hook, { documented, hub }]) => ({
    event: documented,
    hook,
    stop: hub === 'stop',
    command: hookCommand(context.launch, client, hook),
  }));
}

/**
 * Hook entries in the shape Claude Code defined and Codex took up: matcher
 * groups holding `{type: "command", command, timeout}` handlers, timeouts in
 * seconds; `matchers` by the client's event name (events without one match all).
 */
export function commandHookEntries(context: InstallContext, client: ClientName, matchers: Record<string, string>): HookEntry[] {
  return installedEvents(context, client).map(({ event, stop, command }) => {
    const timeout = stop ? context.timing.stopSeconds : context.timing.quickSeconds;
    const matcher = matchers[event];
    return { event, command, item: { ...(matcher === undefined ? {} : { matcher }), hooks: [{ type: 'command', command, timeout }] } };
  });
}
