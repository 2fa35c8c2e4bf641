/**
 * What to do next after an error, said in the words of the surface the user
 * is on. The hub raises an error with a hint key, never with a surface's
 * wording; each surface renders the key when it shows the error: the CLI names
 * the command to type, MCP the tool to call, REST the route, the library the
 * method. Over REST the body carries the key too, so a client of the REST API
 * (the CLI, `parley mcp` on stdio) renders it again for its own user.
 */
export type Surface = 'cli' | 'mcp' | 'rest' | 'library';

export const HINTS = {
  'list-threads': {
    cli: 'List threads with "parley threads", or create a channel with "parley thread create NAME".',
    mcp: 'List threads with chat_threads, or create a channel with chat_thread_create.',
    rest: 'List threads with GET /api/v1/threads, or create a channel with POST /api/v1/threads.',
    library: 'List threads with threads(), or create a channel with createChannel().',
  },
  'start-dm': {
    cli: 'A direct message is started by sending one: "parley dm HANDLE TEXT"; "parley threads" lists yours.',
    mcp: 'A direct message is started by sending one with chat_dm; chat_threads lists yours.',
    rest: 'A direct message is started by sending one with POST /api/v1/dm; GET /api/v1/threads lists yours.',
    library: 'A direct message is started by sending one with dm(); threads() lists yours.',
  },
  'list-open-requests': {
    cli: '"parley inbox --peek" shows the requests waiting for you.',
    mcp: 'List open requests with requests_open.',
    rest: 'List open requests with GET /api/v1/requests/open.',
    library: 'List open requests with openRequests().',
  },
  'use-requests': {
    cli: 'Use requests instead: "parley request HANDLE INTENT".',
    mcp: 'Use requests instead: request_send.',
    rest: 'Use requests instead: POST /api/v1/requests.',
    library: 'Use requests instead: request().',
  },
  'confirm-roster': {
    cli: 'To put it in force anyway, run "parley roster sign --confirm".',
    mcp: 'The hub\'s operator can put it in force anyway by confirming the push.',
    rest: 'To put it in force anyway, send it again with "confirm": true in the body (POST /api/v1/hub/roster).',
    library: 'To put it in force anyway, call acceptRoster(roster, { confirm: true }).',
  },
  'add-to-roster': {
    cli: 'A roster admin adds that key with "parley roster add KEY --role member", then "parley roster sign".',
    mcp: 'Ask a roster admin to add their key to the roster, or address someone who is in it.',
    rest: 'A roster admin adds their key in a new signed roster version: POST /api/v1/hub/roster.',
    library: 'A roster admin adds their key in a new signed roster version: acceptRoster(roster).',
  },
} as const satisfies Record<string, Record<Surface, string>>;

export type HintKey = keyof typeof HINTS;

export function isHintKey(value: unknown): value is HintKey {
  return typeof value === 'string' && Object.hasOwn(HINTS, value);
}

/** The hint in the surface's words. */
export function hintText(key: HintKey, surface: Surface): string {
  return HINTS[key][surface];
}

/** A message and its hint, as one line for `surface`. */
export function withHint(message: string, key: HintKey | undefined, surface: Surface): string {
  return key === undefined ? message : `${message} ${hintText(key, surface)}`;
}

/**
 * The message a REST error body carries, without its REST hint: what a client
 * renders again for its own surface. A body from a hub that words the hint
 * differently keeps its message whole, and loses the key.
 */
export function withoutRestHint(message: string, key: HintKey): string | undefined {
  const suffix = ` ${hintText(key, 'rest')}`;
  return message.endsWith(suffix) ? message.slice(0, -suffix.length) : undefined;
}
