import type { ClientName, Launch } from './spec.js';

/**
 * The commands install writes: absolute and self-contained, so they work from
 * a client's environment, which carries no PARLEY_* variable and maybe not
 * even node on its PATH.
 */

/** A word for `sh -c`: single-quoted, with any single quote closed, escaped and reopened. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The options that name who Parley acts as and where its hub is. */
function identityOptions(launch: Launch): string[] {
  return [
    '--as',
    launch.handle,
    ...(launch.session === undefined ? [] : ['--session', launch.session]),
    '--home',
    launch.home,
    ...(launch.url === undefined ? [] : ['--url', launch.url]),
  ];
}

/** The stdio MCP server entry: node as the command, bin/parley and `mcp --as HANDLE ...` as its arguments. */
export function mcpServerCommand(launch: Launch): { command: string; args: string[] } {
  return { command: launch.node, args: [launch.bin, 'mcp', ...identityOptions(launch)] };
}

/** A hook's command line, as the clients run it through a shell. Handle and session are plain words (their schemas allow no shell characters). */
export function hookCommand(launch: Launch, client: ClientName, event: string): string {
  const options = identityOptions(launch).map((word, index, all) => (all[index - 1] === '--home' || all[index - 1] === '--url' ? shellQuote(word) : word));
  return [shellQuote(launch.node), shellQuote(launch.bin), 'hook', client, event, ...options].join(' ');
}
