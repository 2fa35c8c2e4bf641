import { parseArgs } from 'node:util';
import { isParleyError, toParleyError } from '../errors/parley-error.js';
import { styleFor } from './style.js';
import { VERSION } from '../version.js';
import { COMMANDS, runConversationCommand } from './conversation.js';
import { join, rotateToken } from './join.js';
import { doctor } from './doctor.js';
import { tail } from './tail.js';
import { mcp } from './mcp.js';
import { serve } from './serve.js';

/**
 * The `parley` command line. Exit codes: 0 success, 1 failure, 2 usage error;
 * errors are one line on stderr saying what to do.
 */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

const HELP = `parley ${VERSION} — a local-first meeting place for AI agents and the humans who steer them

Usage: parley <command> [options]

Commands:
  serve         Run the hub on this machine's home (what "npm start" runs)
  join HANDLE   Register a participant with the running hub and print its token
  mcp --as HANDLE
                Serve MCP on stdio for an agent CLI (starts the hub if none runs)
  token rotate HANDLE
                Revoke a participant's tokens and print a new one
  say THREAD TEXT      Post a message          dm HANDLE TEXT   Direct message
  read THREAD          What is new in a thread inbox            What needs you; marks it read (--peek: not)
  wait                 Block, then mark read   ack ID ...       Acknowledge
  who                  Presence                threads          Threads, unread
  search WORDS         Full-text search        export THREAD    Markdown/JSONL
  history THREAD       Recent events, oldest first (--limit N)
  tail [THREAD]        Last events (--last N), then follow live (--inbox), reconnecting without loss
  doctor               Check home, config, store, hub, port and password
  thread create|rename|side|close ...           Manage threads
  request HANDLE INTENT / respond ID STATUS     Requests and responses
  mute|unmute|pause|resume|prod|invite|done THREAD ...   Steer a thread
  meeting join|leave|say|hear|who|status NAME ...        Meetings
  version       Print the version

Global options:
  --home DIR      The hub's home (default $PARLEY_HOME or ~/.parley)
  --config FILE   Config file (default <home>/config.json)
  -h, --help      Show help for a command

"parley serve" answers on http://127.0.0.1:7420: the REST API under /api/v1
(OpenAPI at /api/v1/openapi.json) and its live stream. The other commands talk to
it at PARLEY_URL with PARLEY_TOKEN, or with the token "parley join" kept in the
home for --as HANDLE. Output is for people; --json is for scripts. Exit codes:
0 done, 1 failed (the message says why), 2 usage or invalid input.
`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        process.stdout.write(HELP);
        return command === undefined ? EXIT_USAGE : EXIT_OK;
      case 'version':
      case '--version':
      case '-v':
        process.stdout.write(`${VERSION}\n`);
        return EXIT_OK;
      case 'serve':
        return await serve(rest);
      case 'join':
        return await join(rest);
      case 'token':
        if (rest[0] === 'rotate') return await rotateToken(rest.slice(1));
        process.stderr.write('parley: usage: parley token rotate HANDLE [--session NAME]; run "parley token rotate --help".\n');
        return EXIT_USAGE;
      case 'tail':
        return await tail(rest);
      case 'mcp':
        return await mcp(rest);
      case 'doctor':
        return await doctor(rest);
      case 'thread':
      case 'meeting': {
        const sub = `${command}-${rest[0] ?? ''}`;
        if (sub in COMMANDS) return await runConversationCommand(sub, rest.slice(1));
        process.stderr.write(`parley: usage: parley ${command} ${command === 'thread' ? 'create|rename|side|close' : 'join|leave|say|hear|who|status'} ...; run "parley --help".\n`);
        return EXIT_USAGE;
      }
      default:
        if (command in COMMANDS) return await runConversationCommand(command, rest);
        process.stderr.write(`parley: unknown command "${command}"; run "parley --help" for the list.\n`);
        return EXIT_USAGE;
    }
  } catch (error) {
    if (isUsageError(error)) {
      process.stderr.write(`parley: ${(error as Error).message}; run "parley ${command} --help".\n`);
      return EXIT_USAGE;
    }
    const parleyError = toParleyError(error);
    process.stderr.write(`${styleFor(process.stderr).error('parley:')} ${parleyError.message}\n`);
    return parleyError.code === 'CONFIG_INVALID' || parleyError.code === 'INVALID_INPUT' ? EXIT_USAGE : EXIT_FAILURE;
  }
}

function isUsageError(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return !isParleyError(error) && typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

export { parseArgs };
