import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  CONFIG_FILENAME,
  DEFAULT_AGENTS_STAY_AVAILABLE_SECONDS,
  HOOK_CLIENT_CHECK_MS,
  HOOK_MAX_STDIN_BYTES,
  HOOK_REQUEST_TIMEOUT_MS,
  HOOK_STOP_TIMEOUT_MARGIN_MS,
} from '../config/defaults.js';
import { resolveHome } from '../config/home.js';
import { whenClientGone } from './client-gone.js';
import { loadToken } from './credentials.js';
import { CLIENT_EVENTS, clientOutput, eventOf, isClient, silentOutput, type ClientName } from './hook-clients.js';
import { hubAddress, isHttpUrl } from './live-hub.js';

/**
 * `parley hook <client> <event> --as HANDLE`: what an agent CLI's installed
 * hooks run, on every tool call among others, so it is small and fast: Node's
 * built-ins and a few small modules (no schemas, no SDK, no store), one
 * request to the hub (POST /api/v1/agent/hook), which does the work and
 * renders the context text.
 *
 * A hook must never break its agent. So anything that goes wrong at run time
 * (no hub, no token, an error from the hub) exits 0: silently when no hub
 * answers, else with one line on stderr, which the clients keep out of the
 * agent's context. A mistake in the command itself (an unknown client or
 * event, no --as) exits 1: every one of the four clients shows a failed hook
 * and carries on, while exit 2 would mean "block" to all of them (Claude Code
 * would erase the user's prompt or refuse to stop, feeding the usage text to
 * the model as the reason).
 */

/** The help, built only when asked for (the hook itself runs without it). */
export const hookHelp = (): string => `Usage: parley hook <client> <event> --as HANDLE [--session NAME] [--home DIR] [--url URL]

What an agent CLI's hooks run ("parley install" writes them). Reads the event
JSON the client passes on stdin and prints that client's documented answer:
the agent's new inbox items (high and normal, each once) as added context
between tool calls and on a prompt; at a stop, the new items as the reason to
go on. An agent in the hub's agents.stayAvailable waits at a stop, up to
agents.stayAvailableSeconds, for a message to arrive; at most
agents.maxStopContinuations stops in a row are blocked.

Clients and events (the client's own spelling, e.g. PostToolUse, works too):
${Object.entries(CLIENT_EVENTS)
  .map(([client, events]) => `  ${client.padEnd(8)}${Object.keys(events).join(', ')}`)
  .join('\n')}

Prints nothing (Cursor: {}) when nothing is new. Exits 0 when the hub is down
or answers with an error (one line on stderr), so the agent works on; exits 1
for a mistake in the command itself, which every client shows without
blocking (exit 2 would block the agent). "parley hook claude" does nothing
under Cursor (CURSOR_VERSION set), which also runs Claude Code's hooks.

  --as HANDLE      The participant (its token from "parley join", kept in the home)
  --session NAME   The Parley session (default "default")
  --home DIR       The home holding the token (default $PARLEY_HOME or ~/.parley)
  --url URL        The hub (default PARLEY_URL, else the hub running on the home)
`;

const EXIT_OK = 0;
/** A mistake in the hook command: shown by the clients as a failed hook, never a block (see above). */
const EXIT_HOOK_USAGE = 1;

interface HubAnswer {
  injected?: number;
  text?: string;
  block?: boolean;
}

/** The client's facts the hub needs, from its event JSON. */
interface ClientFacts {
  session?: string;
  stop_hook_active?: boolean;
  loop_count?: number;
}

export async function hook(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(hookHelp());
    return EXIT_OK;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { as: { type: 'string' }, session: { type: 'string' }, home: { type: 'string' }, url: { type: 'string' } },
    });
  } catch (error) {
    return usage((error as Error).message);
  }
  const [clientName, eventName, ...extra] = parsed.positionals;
  const client = clientName !== undefined && isClient(clientName) ? clientName : undefined;
  if (!client) return usage(`unknown client "${clientName ?? ''}" (one of ${Object.keys(CLIENT_EVENTS).join(', ')})`);
  const event = eventName === undefined ? undefined : eventOf(client, eventName);
  if (!event) return usage(`unknown ${client} event "${eventName ?? ''}" (one of ${Object.keys(CLIENT_EVENTS[client]).join(', ')})`);
  if (extra.length > 0) return usage(`unexpected argument "${extra[0]!}"`);
  const { as: handle, session = 'default', home: homeFlag, url: urlFlag } = parsed.values;
  if (!handle) return usage('--as HANDLE is required (the participant whose hook this is)');
  if (urlFlag !== undefined && !isHttpUrl(urlFlag)) return usage(`--url "${urlFlag}" is not an http:// or https:// URL`);
  // Cursor runs Claude Code's hooks too: they are Claude's participant's, not this agent's.
  if (client === 'claude' && process.env.CURSOR_VERSION) return EXIT_OK;

  const home = resolveHome(homeFlag);
  const address = hubAddress({ url: urlFlag, home }, process.env);
  if (address.from === 'PARLEY_URL' && !isHttpUrl(address.url)) return problem(`PARLEY_URL "${address.url}" is not an http:// or https:// URL`, client);
  const token = loadToken(home, session, handle);
  if (!token) return problem(`no token for "${handle}" in session "${session}" in ${home}; run "parley join ${handle}${session === 'default' ? '' : ` --session ${session}`}" with the same home`, client);

  // A tool run needs nothing from the event JSON (the clients let a hook leave its stdin unread, as "echo" would): not read.
  const facts = event.hub === 'tool' ? {} : factsOf(await readInput());
  const body = JSON.stringify({ event: event.hub, ...facts });
  const timeoutMs = event.hub === 'stop' ? stopWaitMs(home) + HOOK_STOP_TIMEOUT_MARGIN_MS : HOOK_REQUEST_TIMEOUT_MS;
  // A client killed meanwhile reads no answer: the request ends (and with it the hub's stop wait), leaving new items in the inbox.
  const clientGone = new AbortController();
  const stopChecking = whenClientGone(() => clientGone.abort(), HOOK_CLIENT_CHECK_MS);
  let answer: HubAnswer;
  try {
    answer = await post(`${address.url.replace(/\/+$/, '')}/api/v1/agent/hook`, token, body, timeoutMs, clientGone.signal);
  } catch (error) {
    // Nobody to tell anything to.
    if (clientGone.signal.aborted) return EXIT_OK;
    const message = (error as Error).message;
    // No hub: the agent works on, and nothing is said.
    if (message === 'unreachable') return quiet(client);
    return problem(message, client);
  } finally {
    stopChecking();
  }
  const output = clientOutput(client, event, answer);
  if (output !== undefined) process.stdout.write(`${output}\n`);
  return EXIT_OK;
}

function usage(message: string): number {
  process.stderr.write(`parley hook: ${message}; run "parley hook --help".\n`);
  return EXIT_HOOK_USAGE;
}

/** A problem at run time: one line on stderr, the client's "nothing" on stdout, exit 0. */
function problem(message: string, client: ClientName): number {
  process.stderr.write(`parley hook: ${message}\n`);
  return quiet(client);
}

function quiet(client: ClientName): number {
  const output = silentOutput(client);
  if (output !== undefined) process.stdout.write(`${output}\n`);
  return EXIT_OK;
}

/** All of stdin, as the client writes it, keeping the first HOOK_MAX_STDIN_BYTES (the rest is read and dropped). */
function readInput(): Promise<{ text: string; whole: boolean }> {
  const stdin = process.stdin;
  if (stdin.isTTY) return Promise.resolve({ text: '', whole: true });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stdin.on('data', (chunk: Buffer) => {
      if (size < HOOK_MAX_STDIN_BYTES) chunks.push(chunk);
      size += chunk.length;
    });
    const done = (): void => resolve({ text: Buffer.concat(chunks).toString('utf8'), whole: size <= HOOK_MAX_STDIN_BYTES });
    stdin.once('end', done);
    stdin.once('error', done);
  });
}

/** The fields the hub needs: the client's session id (Cursor: conversation_id), stop_hook_active, loop_count. */
function factsOf(input: { text: string; whole: boolean }): ClientFacts {
  let event: Record<string, unknown> = {};
  try {
    const value = JSON.parse(input.text) as unknown;
    if (value !== null && typeof value === 'object') event = value as Record<string, unknown>;
  } catch {
    // Too long to parse whole (a stop's last message is the long part; the ids come first), or not JSON.
    if (!input.whole) event = leadingFields(input.text);
  }
  const session = event.session_id ?? event.conversation_id;
  return {
    // Client session ids are UUIDs and the like; anything else the hub would refuse is left out (one session then).
    ...(typeof session === 'string' && /^[\x20-\x7e]{1,256}$/.test(session) ? { session } : {}),
    ...(typeof event.stop_hook_active === 'boolean' ? { stop_hook_active: event.stop_hook_active } : {}),
    ...(Number.isSafeInteger(event.loop_count) && (event.loop_count as number) >= 0 ? { loop_count: event.loop_count as number } : {}),
  };
}

function leadingFields(text: string): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const match of text.matchAll(/"(session_id|conversation_id|stop_hook_active|loop_count)"\s*:\s*("(?:[^"\\]|\\.)*"|true|false|\d+)/g)) {
    try {
      fields[match[1]!] ??= JSON.parse(match[2]!);
    } catch {
      // Not a value after all.
    }
  }
  return fields;
}

/**
 * The hub's stop wait, as the home's config says (agents.stayAvailableSeconds,
 * or its environment variable), so that the stop request waits a little longer
 * than the hub does and never forever.
 */
function stopWaitMs(home: string): number {
  const fromEnv = Number(process.env.PARLEY_AGENTS_STAY_AVAILABLE_SECONDS);
  if (process.env.PARLEY_AGENTS_STAY_AVAILABLE_SECONDS && Number.isFinite(fromEnv)) return fromEnv * 1000;
  try {
    const config = JSON.parse(fs.readFileSync(path.join(home, CONFIG_FILENAME), 'utf8')) as { agents?: { stayAvailableSeconds?: unknown } };
    const seconds = config.agents?.stayAvailableSeconds;
    if (typeof seconds === 'number' && Number.isFinite(seconds)) return seconds * 1000;
  } catch {
    // No config file, or not JSON: the hub runs on its defaults (or will refuse it).
  }
  return DEFAULT_AGENTS_STAY_AVAILABLE_SECONDS * 1000;
}

/** One POST over node:http (fetch's client would cost more to load than the request takes); rejects with "unreachable" when no hub answers. */
async function post(url: string, token: string, body: string, timeoutMs: number, signal: AbortSignal): Promise<HubAnswer> {
  const target = new URL(url);
  const { request } = target.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      {
        method: 'POST',
        // One request, then the process ends: no connection kept for later.
        agent: false,
        signal,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('error', () => reject(new Error('the hub\'s answer was cut off')));
        res.on('end', () => {
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300 && json !== null && typeof json === 'object') return resolve(json as HubAnswer);
          const error = (json as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
          reject(new Error(typeof error?.message === 'string' ? `the hub answered ${String(error.code)}: ${error.message}` : `the hub answered HTTP ${status}`));
        });
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`the hub did not answer within ${Math.round(timeoutMs / 1000)} s`)));
    req.on('error', (error: NodeJS.ErrnoException) => {
      const unreachable = error.code === 'ECONNREFUSED' || error.code === 'ENOTFOUND' || error.code === 'EHOSTUNREACH' || error.code === 'ECONNRESET';
      reject(unreachable ? new Error('unreachable') : error);
    });
    req.end(body);
  });
}

