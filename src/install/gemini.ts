import os from 'node:os';
import path from 'node:path';
import { mcpServerCommand } from './command-line.js';
import { installedEvents } from './hook-entries.js';
import type { ClientSpec, HookEntry, InstallContext } from './spec.js';

/**
 * Gemini CLI (gemini-cli docs/reference/configuration.md, docs/hooks/).
 * `mcpServers.parley` and `hooks` in `.gemini/settings.json`, under the
 * project or under ~ for --user. Hook handlers carry a `name`; their timeouts
 * are in milliseconds; AfterTool's matcher is a regex on the tool name.
 */
const MATCHERS: Record<string, string> = { SessionStart: '*', AfterTool: '.*', SessionEnd: '*' };

function hooks(context: InstallContext): HookEntry[] {
  return installedEvents(context, 'gemini').map(({ event, hook, stop, command }) => {
    const seconds = stop ? context.timing.stopSeconds : context.timing.quickSeconds;
    const handler = { name: `parley-${hook}`, type: 'command', command, timeout: seconds * 1000 };
    const matcher = MATCHERS[event];
    return { event, command, item: { ...(matcher === undefined ? {} : { matcher }), hooks: [handler] } };
  });
}

export const gemini: ClientSpec = {
  name: 'gemini',
  title: 'Gemini CLI',
  files: (context) => [
    {
      format: 'json',
      path: path.join(context.scope === 'user' ? os.homedir() : context.root, '.gemini', 'settings.json'),
      mcpServer: { path: ['mcpServers'], name: 'parley', entry: mcpServerCommand(context.launch) },
      hooks: { grouped: true, entries: hooks(context) },
      // The project's shared Gemini settings, which a team may commit: kept out of git only when install created the file.
      keepOutOfGit: 'if-created',
    },
  ],
  notes: (context) => [
    context.scope === 'project'
      ? 'Gemini CLI ignores a project\'s .gemini/settings.json, and refuses stdio MCP servers, in a folder you have not trusted: trust it when asked (or run "gemini trust").'
      : 'Gemini CLI refuses stdio MCP servers in a folder you have not trusted: trust the folders you work in when asked.',
    'Hooks run by default from Gemini CLI 0.27 on; on older versions set "hooksConfig": {"enabled": true}. Gemini warns the first time it sees new project hooks.',
  ],
};
