import os from 'node:os';
import path from 'node:path';
import { mcpServerCommand } from './command-line.js';
import { commandHookEntries } from './hook-entries.js';
import type { ClientSpec, HookEntry, InstallContext } from './spec.js';
import { tomlStringArray, tomlString } from './toml-block.js';

/**
 * Codex CLI (https://developers.openai.com/codex/config-basic, /codex/hooks).
 * `[mcp_servers.parley]` in `.codex/config.toml` (a managed block, see
 * toml-block.ts) and the hooks in `.codex/hooks.json`, under the project or
 * under ~ for --user. Hook timeouts are in seconds; matchers are regexes.
 * `notify` is not used: Codex starts it fire-and-forget, with no stdin and no
 * stdout, so it can neither add context nor keep the agent going — the Stop
 * hook does both.
 */
const hooks = (context: InstallContext): HookEntry[] => commandHookEntries(context, 'codex', { PostToolUse: '.*' });

export const codex: ClientSpec = {
  name: 'codex',
  title: 'Codex CLI',
  files: (context) => {
    // Codex keeps its user config in $CODEX_HOME, ~/.codex when unset.
    const folder = context.scope === 'user' ? process.env.CODEX_HOME || path.join(os.homedir(), '.codex') : path.join(context.root, '.codex');
    const server = mcpServerCommand(context.launch);
    return [
      {
        format: 'toml',
        path: path.join(folder, 'config.toml'),
        // A project's Codex settings, which a team may commit: kept out of git only when install created the file.
        keepOutOfGit: 'if-created',
        table: 'mcp_servers.parley',
        body: `[mcp_servers.parley]\ncommand = ${tomlString(server.command)}\nargs = ${tomlStringArray(server.args)}\nstartup_timeout_sec = ${context.timing.mcpStartupSeconds}\n`,
      },
      // Shared project hooks too (a team may commit its own): the same rule.
      { format: 'json', path: path.join(folder, 'hooks.json'), hooks: { grouped: true, entries: hooks(context) }, keepOutOfGit: 'if-created' },
    ];
  },
  notes: (context) => [
    ...(context.scope === 'project' ? ['Codex loads a project\'s .codex/ only when the project is trusted (it asks on first start; the answer is kept in ~/.codex/config.toml).'] : []),
    'Codex runs new or changed hooks only after you review them: open /hooks in Codex and trust Parley\'s four hooks (until then it skips them and warns that hooks need review).',
    'Codex\'s "notify" is not used: Codex starts it without stdin or stdout and does not wait, so it can neither add context nor keep the agent going; the Stop hook does both.',
  ],
};
