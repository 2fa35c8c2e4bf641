import os from 'node:os';
import path from 'node:path';
import { mcpServerCommand } from './command-line.js';
import { installedEvents } from './hook-entries.js';
import type { ClientSpec, HookEntry, InstallContext } from './spec.js';

/**
 * Cursor (https://cursor.com/docs/mcp, https://cursor.com/docs/hooks).
 * `mcpServers.parley` (type "stdio") in `.cursor/mcp.json` and the hooks in
 * `.cursor/hooks.json` (version 1; handlers directly under each event; timeouts
 * in seconds; `loop_limit` caps stop follow-ups), under the project or under ~
 * for --user. beforeSubmitPrompt is not installed: Cursor documents no way for
 * it to add context.
 */
function hooks(context: InstallContext): HookEntry[] {
  return installedEvents(context, 'cursor').map(({ event, stop, command }) => ({
    event,
    command,
    item: stop ? { command, timeout: context.timing.stopSeconds, loop_limit: context.timing.stopLoopLimit } : { command, timeout: context.timing.quickSeconds },
  }));
}

export const cursor: ClientSpec = {
  name: 'cursor',
  title: 'Cursor',
  files: (context) => {
    const folder = path.join(context.scope === 'user' ? os.homedir() : context.root, '.cursor');
    // Both are the project's shared Cursor config, which a team may commit: kept out of git only when install created them.
    return [
      {
        format: 'json',
        path: path.join(folder, 'mcp.json'),
        mcpServer: { path: ['mcpServers'], name: 'parley', entry: { type: 'stdio', ...mcpServerCommand(context.launch) } },
        keepOutOfGit: 'if-created',
      },
      { format: 'json', path: path.join(folder, 'hooks.json'), required: { version: 1 }, hooks: { grouped: false, entries: hooks(context) }, keepOutOfGit: 'if-created' },
    ];
  },
  notes: (context) => [
    ...(context.scope === 'project' ? ['Cursor runs a project\'s hooks only in a trusted workspace; it reloads hooks.json when the file changes.'] : []),
    'Cursor asks before each call of a tool of the "parley" server unless you allow it (Settings > MCP).',
    'Cursor also runs Claude Code\'s hooks (.claude/settings*.json); "parley hook claude" does nothing there, so a Claude install beside this one stays apart.',
  ],
};
