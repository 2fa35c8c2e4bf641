import { z } from 'zod';
import { oneLineText } from './text.js';

/**
 * Names and identifiers as they appear at every entry point. These schemas are
 * shared by the library, the REST validators and the MCP tool inputs to come.
 */

/** A participant's handle: `coder-1`, `human`, `planner.3`. Unique per hub, case-insensitive. */
export const HandleSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(64, 'must be at most 64 characters')
  .regex(/^@?[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'must be letters, digits, "_", "." or "-", starting with a letter or digit')
  .transform((h) => (h.startsWith('@') ? h.slice(1) : h));

/**
 * A participant as a caller names one: its handle, or `handle@hubname` for
 * one held on more than one linked hub (the hub's name as its peers know it).
 */
export const ParticipantRefSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(129, 'must be at most 129 characters')
  .regex(
    /^@?[A-Za-z0-9][A-Za-z0-9_.-]*(@[A-Za-z0-9][A-Za-z0-9_.-]*)?$/,
    'must be a handle (letters, digits, "_", "." or "-", starting with a letter or digit), or handle@hubname for a participant of a linked hub',
  )
  .transform((h) => (h.startsWith('@') ? h.slice(1) : h));

/** A session's name: a project or an orchestrator run. */
export const SessionNameSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(64, 'must be at most 64 characters')
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/, 'must be letters, digits, "_", ".", ":" or "-", starting with a letter or digit');

/** A channel's name, with or without its leading `#`. Stored lowercase. */
export const ChannelNameSchema = z
  .string()
  .trim()
  .max(65, 'must be at most 64 characters')
  .transform((n) => (n.startsWith('#') ? n.slice(1) : n).toLowerCase())
  .pipe(z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be 1-64 lowercase letters, digits, "_" or "-"'));

const MAX_THREAD_TITLE_CHARS = 200;

/** A title for side channels and renamed threads: free text, one line. */
export const ThreadTitleSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(MAX_THREAD_TITLE_CHARS, `must be at most ${MAX_THREAD_TITLE_CHARS} characters`)
  .check(oneLineText);

/**
 * A thread is named by any name it is shown with: its id, a channel's name
 * (`general`, `#general`), `@handle` for a DM, a DM's `dm:a,b`, a side
 * channel's title (see src/hub/thread-ref.ts). The longest of these is a
 * title, so a reference may be as long as one.
 */
export const ThreadRefSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(MAX_THREAD_TITLE_CHARS, `must be at most ${MAX_THREAD_TITLE_CHARS} characters`)
  .check(oneLineText);

/** ULIDs: 26 Crockford base32 characters. */
const ULID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;
export const UlidSchema = z.string().regex(ULID_PATTERN, 'must be a 26-character ULID');
/** What UlidSchema takes, asked without parsing (on paths that check every event; the schema names the fault). */
export const isUlid = (value: unknown): value is string => typeof value === 'string' && ULID_PATTERN.test(value);

export const SeqSchema = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const TagSchema = z.string().trim().min(1).max(64).check(oneLineText);
