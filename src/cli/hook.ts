import { parseArgs } from 'node:util';
import {
  HOOK_CLIENT_CHECK_MS,
  HOOK_MAX_STDIN_BYTES,
  HOOK_REQUEST_TIMEOUT_MS,
  HOOK_STDIN_TIMEOUT_MS,
  HOOK_STOP_TIMEOUT_MARGIN_MS,
  MAX_AGENTS_STAY_AVAILABLE_SECONDS,
} from '../config/defaults.js';
import { resolveHome } from '../config/home.js';
import { whenClientGone } from './client-gone.js';
import { loadToken } from '../client/credentials.js';
import { givenHubAddress, isHttpUrl, liveHub } from '../client/live-hub.js';
import { postAgentHook, UNREACHABLE, type AgentHookAnswer } from '../client/socket-post.js';
import { CLIENT_EVENTS, eventOf, isClient } from '../install/hook-events.js';
import type { ClientName } from '../install/spec.js';
import type { CommandRun } from './command.js';
import { clientOutput, silentOutput } from './hook-clients.js';

/**
 * `parley hook <client> <event> --as HANDLE`: what an agent CLI's installed
 * hooks run, on every tool call among others, so it is small and fast: Node's
 * built-ins and a few small modules (no schemas, no SDK, no store), one
 * request to the hub (its agent hook route), which does the work and
 * renders the context text.
 *
 * A hook must never break its agent. So anything that goes wrong at run time
 * (no hub, no token, an error from the hub) exits 0: silently when no hub
 * answers, else with one line on stderr, which the clients keep out of the
 * agent's context. The hub found through the home gets the token only once it
 * has proved it is that home's hub; anything else answering there gets
 * nothing, and nothing it says reaches the agent. A mistake in the command
 * itself (an unknown client or event, no --as) exits 1: every one of the four
 * clients shows a failed hook and carries on, while exit 2 would mean "block"
 * to all of them (Claude Code would erase the user's prompt or refuse to stop,
 * feeding the usage text to the model as the reason).
 */

/** The help, built only when asked for (the hook itself runs without it). */
export const hookHelp = (): string => `Usage: parley hook <client> <event> --as HANDLE [--session NAME] [--home DIR] [--url URL]

What an agent CLI's hooks run ("parley install" writes them). Reads the event
JSON the client passes on stdin and prints that client's documented answer:
the agent's new inbox items (high and normal, each once) as added context
between tool calls and on a prompt; at a stop, the new items as the reason to
go on. An agent in the hub's agents.stayAvailable waits at a stop, up to
agents.stayAvailableSeconds, for a message to arrive; at most
agents.maxStopContinuations stops in a row are blocked. Inside a coordinator
run (PARLEY_DEPTH set) a stop neither waits nor blocks.

Clients and events (the client's own spelling, e.g. PostToolUse, works too):
${Object.entries(CLIENT_EVENTS)
  .map(([client, events]) => `  ${client.padEnd(8)}${Object.keys(events).join(', ')}`)
  .join('\n')}

Prints nothing (Cursor: {}) when nothing is new. Exits 0 when the hub is down
or answers with an error (one line on stderr), so the agent works on; exits 1
for a mistake in the command itself, which every client shows without
blocking (exit 2 would block the agent). "parley hook claude" does nothing
for Cursor's events (CURSOR_VERSION set and Cursor's event JSON): Cursor
also runs Claude Code's hooks.

  --as HANDLE      The participant (its token from "parley join", kept in the home)
  --session NAME   The Parley session (default "default")
  --home DIR       The home holding the token (default $PARLEY_HOME or ~/.parley)
  --url URL        The hub (default PARLEY_URL, else the hub running on the home,
                   once it proves it is that home's hub)
`;

const EXIT_OK = 0;
/** A mistake in the hook command: shown by the clients as a failed hook, never a block (see above). */
const EXIT_HOOK_USAGE = 1;

/** The client's facts the hub needs, from its event JSON. */
interface ClientFacts {
  session?: string;
  stop_hook_active?: boolean;
  loop_count?: number;
}

/** The hook in the command table: it reads its own arguments, so that a mistake in them exits 1, never 2. */
export const hookCommand: CommandRun = { help: hookHelp, run: ({ argv }) => hook(argv) };

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
  // The event JSON is read whole on every event, while the hub is asked: a client's write to a hook that exits
  // first fails once past the pipe's buffer (64 KiB), and Codex then counts the hook as failed and drops its
  // output, when the hub has already recorded the items in it as injected.
  const input = readInput();
  const outcome = await respond({ client, event, handle, session, homeFlag, urlFlag }, input);
  await input;
  if (outcome.stderr !== undefined) process.stderr.write(`parley hook: ${outcome.stderr}\n`);
  if (outcome.stdout !== undefined) process.stdout.write(`${outcome.stdout}\n`);
  return EXIT_OK;
}

interface HookCall {
  client: ClientName;
  event: NonNullable<ReturnType<typeof eventOf>>;
  handle: string;
  session: string;
  homeFlag: string | undefined;
  urlFlag: string | undefined;
}

/** What the hook prints: its answer on stdout, a run-time problem as one line on stderr. */
interface Outcome {
  stdout?: string;
  stderr?: string;
}

async function respond({ client, event, handle, session, homeFlag, urlFlag }: HookCall, input: Promise<EventInput>): Promise<Outcome> {
  // Cursor runs Claude Code's hooks too, with its own event JSON: they are Claude's participant's, not this agent's.
  // CURSOR_VERSION alone is not enough: Cursor's terminal may export it to a Claude Code started there.
  if (client === 'claude' && process.env.CURSOR_VERSION && isCursorEvent((await input).text)) return {};

  const home = resolveHome(homeFlag);
  const given = givenHubAddress(urlFlag, process.env);
  if (given?.from === 'PARLEY_URL' && !isHttpUrl(given.url)) return problem(`PARLEY_URL "${given.url}" is not an http:// or https:// URL`, client);
  const token = loadToken(home, session, handle);
  if (!token) return problem(`no token for "${handle}" in session "${session}" in ${home}; run "parley join ${handle}${session === 'default' ? '' : ` --session ${session}`}" with the same home`, client);

  // A tool run needs nothing from the event JSON, so it is asked for while the JSON is read.
  const facts = event.hub === 'tool' ? {} : factsOf(await input);
  // Inside a coordinator run (which sets PARLEY_DEPTH for its adapter), the coordinator answers for the run: the
  // stop neither waits (the run would be killed as timed out) nor blocks, and the hub still learns the agent stopped.
  const stopWaits = event.hub === 'stop' && !process.env.PARLEY_DEPTH;
  const body = JSON.stringify({ event: event.hub, ...facts, ...(event.hub === 'stop' && !stopWaits ? { wait: false } : {}) });
  // A stop waits as long as the hub's own setting says, unknown here: the hub's longest allowed wait bounds it, and
  // before that the client's hook timeout, or the hub's wait ending, or the hub ending it when the hook goes away.
  const timeoutMs = stopWaits ? MAX_AGENTS_STAY_AVAILABLE_SECONDS * 1000 + HOOK_STOP_TIMEOUT_MARGIN_MS : HOOK_REQUEST_TIMEOUT_MS;
  // A client killed meanwhile reads no answer: the request ends (and with it the hub's stop wait), leaving new items in the inbox.
  const clientGone = new AbortController();
  const stopChecking = whenClientGone(() => clientGone.abort(), HOOK_CLIENT_CHECK_MS);
  let answer: AgentHookAnswer;
  try {
    const hub = given ? { url: given.url.replace(/\/+$/, '') } : await homeHub(home, client, clientGone.signal);
    if (!('url' in hub)) return hub.outcome;
    answer = await postAgentHook(hub.url, token, body, timeoutMs, clientGone.signal);
  } catch (error) {
    // Nobody to tell anything to.
    if (clientGone.signal.aborted) return {};
    const message = (error as Error).message;
    // No hub: the agent works on, and nothing is said.
    if (message === UNREACHABLE) return quiet(client);
    return problem(message, client);
  } finally {
    stopChecking();
  }
  const output = clientOutput(client, event, answer);
  return output === undefined ? {} : { stdout: output };
}

/** The hub running on the home, once it has proved it is that home's hub; else what the hook prints instead. */
async function homeHub(home: string, client: ClientName, signal: AbortSignal): Promise<{ url: string } | { outcome: Outcome }> {
  const holder = liveHub(home);
  // No hub runs on the home: the agent works on, and nothing is said (nor sent anywhere).
  if (!holder?.url) return { outcome: quiet(client) };
  // Loaded here: node:crypto costs a few ms, which a hook given its hub's address (--url) does without.
  const { proveHub } = await import('../client/hub-proof.js');
  const proof = await proveHub(holder, HOOK_REQUEST_TIMEOUT_MS, signal);
  if (proof.ok) return { url: proof.url };
  if (signal.aborted) return { outcome: {} };
  // Nothing answers there: as when no hub runs. Something that is not the home's hub answers: it is told nothing.
  return { outcome: proof.unreachable ? quiet(client) : problem(`${proof.reason}; the token was not sent to it`, client) };
}

function usage(message: string): number {
  process.stderr.write(`parley hook: ${message}; run "parley hook --help".\n`);
  return EXIT_HOOK_USAGE;
}

/** A problem at run time: one line on stderr, the client's "nothing" on stdout, exit 0. */
function problem(message: string, client: ClientName): Outcome {
  return { ...quiet(client), stderr: message };
}

function quiet(client: ClientName): Outcome {
  const output = silentOutput(client);
  return output === undefined ? {} : { stdout: output };
}

/** Cursor's event JSON (it runs Claude Code's hooks too): its own fields, which Claude Code's events do not carry. */
function isCursorEvent(text: string): boolean {
  return /"(cursor_version|conversation_id)"\s*:/.test(text);
}

interface EventInput {
  text: string;
  /** All of it was read (then it can be parsed whole). */
  whole: boolean;
}

/**
 * Stdin, as the client writes it, to its end: the first HOOK_MAX_STDIN_BYTES
 * kept (the rest read and dropped), for HOOK_STDIN_TIMEOUT_MS at most (a
 * client that keeps it open gets what it wrote by then read).
 */
function readInput(): Promise<EventInput> {
  const stdin = process.stdin;
  if (stdin.isTTY) return Promise.resolve({ text: '', whole: true });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (ended: boolean): void => {
      clearTimeout(timer);
      // Read no further, so that the hook can end.
      if (!ended) stdin.destroy();
      resolve({ text: Buffer.concat(chunks).toString('utf8'), whole: ended && size <= HOOK_MAX_STDIN_BYTES });
    };
    const timer = setTimeout(() => finish(false), HOOK_STDIN_TIMEOUT_MS);
    stdin.on('data', (chunk: Buffer) => {
      if (size < HOOK_MAX_STDIN_BYTES) chunks.push(chunk);
      size += chunk.length;
    });
    stdin.once('end', () => finish(true));
    stdin.once('error', () => finish(false));
  });
}

/** The fields the hub needs: the client's session id (Cursor: conversation_id), stop_hook_active, loop_count. */
function factsOf(input: EventInput): ClientFacts {
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
