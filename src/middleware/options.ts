import { z } from 'zod';
import { DEFAULT_MAX_NEW_MESSAGES, MAX_INBOX_LIMIT } from '../config/defaults.js';
import { parseInput } from '../errors/parley-error.js';
import { HandleSchema, SessionNameSchema } from '../schema/names.js';

export { DEFAULT_MAX_NEW_MESSAGES };

/**
 * How a program reaches Parley as one participant: the LLM middleware, the
 * plain wrapper and the agent loop all take these. Only `handle` is needed;
 * the rest is found the way the CLI finds it (see linkToHub).
 */
export const ParleyOptionsSchema = z.strictObject({
  /** The participant the model speaks as (`coder-1`). */
  handle: HandleSchema,
  /** The hub's address; default `PARLEY_URL`, else the hub running on the home (once it proves it is that home's hub). */
  url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL, e.g. http://127.0.0.1:7420' }).optional(),
  /** A bearer token of `handle`; default `PARLEY_TOKEN`, else the one `parley join` kept in the home. */
  token: z.string().min(1).optional(),
  /** Parley's home (default `PARLEY_HOME`, else ~/.parley): where kept tokens and the running hub are found. */
  home: z.string().min(1).optional(),
  /** The session (default "default"). */
  session: SessionNameSchema.optional(),
  /** At most this many new items per model call; a line says how many more wait. */
  maxNewMessages: z.number().int().min(1).max(MAX_INBOX_LIMIT).optional(),
  /**
   * Tool names that count as chat, for the reminder after a chat-only turn
   * and the tools an excluded participant does not get (default: Parley's
   * chat tools). Each also counts under the prefix an MCP client gives the
   * server installed as "parley" (`mcp__parley__chat_post`); for a server
   * installed under another name, list the full names.
   */
  chatTools: z.array(z.string().min(1).max(128)).max(256).optional(),
  /** How long a model call waits for the hub before it goes on without chat (default 5000 ms). */
  hubTimeoutMs: z.number().int().min(1).max(600_000).optional(),
  /** Where the one line per injection goes: a function, or false for nowhere (default: stderr). */
  log: z.union([z.literal(false), z.custom<(line: string) => void>((value) => typeof value === 'function', 'must be a function or false')]).optional(),
});
export type ParleyOptions = z.input<typeof ParleyOptionsSchema>;

/** The options, checked: a bad one is INVALID_INPUT naming it (`handle`, `url`, …). */
export function parleyOptions<T extends ParleyOptions>(options: T, schema: z.ZodType = ParleyOptionsSchema): T {
  parseInput(schema, options);
  return options;
}

/** Where the `log` option sends lines: the function given, nowhere for false, else stderr. */
export function logLineOf(log: ParleyOptions['log']): ((line: string) => void) | undefined {
  if (log === false) return undefined;
  return (
    log ??
    ((line) => {
      process.stderr.write(`${line}\n`);
    })
  );
}
