import os from 'node:os';
import path from 'node:path';
import { mcpServerCommand } from './command-line.js';
import { commandHookEntries } from './hook-entries.js';
import type { ClientSpec, HookEntry, InstallContext } from './spec.js';

/**
 * Claude Code (https://code.claude.com/docs/en/mcp, /hooks, /settings).
 * Project scope: the server in `.mcp.json`; the hooks, and the approval of the
 * project's `parley` server, in `.claude/settings.local.json` — the personal
 * settings file, not the committed one, since the commands hold this machine's
 * paths and handle. User scope: the server in `~/.claude.json` (top-level
 * `mcpServers`), the hooks in `~/.claude/settings.json`. Hook timeouts are in
 * seconds; UserPromptSubmit and Stop take no matcher.
 */
const hooks = (context: InstallContext): HookEntry[] => commandHookEntries(context, 'claude', { PostToolUse: '*' });

export const claude: ClientSpec = {
  name: 'claude',
  title: 'Claude Code',
  files: (context) => {
    const server = { path: ['mcpServers'], name: 'parley', entry: { type: 'stdio', ...mcpServerCommand(context.launch) } };
    const hookSpec = { grouped: true, entries: hooks(context) };
    if (context.scope === 'user') {
      const home = os.homedir();
      return [
        { format: 'json', path: path.join(home, '.claude.json'), mcpServer: server },
        { format: 'json', path: path.join(home, '.claude', 'settings.json'), hooks: hookSpec },
      ];
    }
    return [
      // The project's shared server list, often committed: kept out of git only when install created it.
      { format: 'json', path: path.join(context.root, '.mcp.json'), mcpServer: server, keepOutOfGit: 'if-created' },
      {
        format: 'json',
        path: path.join(context.root, '.claude', 'settings.local.json'),
        // Claude Code's personal settings file, never meant to be committed.
        keepOutOfGit: 'always',
        approval: { key: 'enabledMcpjsonServers', value: 'parley', unlessTrue: 'enableAllProjectMcpServers' },
        hooks: hookSpec,
      },
    ];
  },
  notes: (context) =>
    context.scope === 'user'
      ? [
          'Claude Code rewrites ~/.claude.json while it runs: quit it before installing or uninstalling, then start a new session.',
          'Cursor also runs the hooks in ~/.claude/settings.json; "parley hook claude" does nothing when Cursor runs it.',
        ]
      : [
          'Claude Code honours .claude/settings.local.json (the hooks and the approval of the "parley" server) only in a folder you have trusted: accept the trust dialog when it starts there.',
          'Cursor also runs the hooks in .claude/settings*.json; "parley hook claude" does nothing when Cursor runs it.',
        ],
};
