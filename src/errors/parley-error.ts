// Types only: the CLI's one-shot commands use ParleyError without loading zod.
import type { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from './codes.js';
import { isHintKey, withHint, withoutRestHint, type HintKey, type Surface } from './hints.js';
import { describeStorageFailure, storageFailureOf } from './storage-failure.js';

/**
 * The one error type of Parley. `code` is stable and machine-readable; the
 * message says what happened and what to do about it; `field` names the input
 * at fault when there is one. When what to do is "use this other operation",
 * the message leaves it out and `hint` names it instead, for each surface to
 * say in its own words (`messageFor`, see hints.ts).
 */
export class ParleyError extends Error {
  override readonly name = 'ParleyError';
  readonly code: ErrorCode;
  readonly field: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly hint: HintKey | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { field?: string; details?: Record<string, unknown>; hint?: HintKey; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.field = options.field;
    this.details = options.details;
    this.hint = options.hint;
  }

  /** The message as `surface` shows it: followed by the hint in that surface's words. */
  messageFor(surface: Surface): string {
    return withHint(this.message, this.hint, surface);
  }

  get httpStatus(): number {
    return ERROR_CODES[this.code].http;
  }

  get jsonRpcCode(): number {
    return ERROR_CODES[this.code].jsonRpc;
  }

  /** The REST body's `error`: the message with the REST hint, and the hint's key for clients that show another surface. */
  toJSON(): ErrorBody {
    return {
      code: this.code,
      message: this.messageFor('rest'),
      ...(this.field === undefined ? {} : { field: this.field }),
      ...(this.hint === undefined ? {} : { hint: this.hint }),
      ...(this.details === undefined ? {} : { details: this.details }),
    };
  }
}

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  field?: string;
  hint?: HintKey;
  details?: Record<string, unknown>;
}

/**
 * The ParleyError a hub answered with over REST (`{error: …}`), as it was
 * raised: same code, field, details, and the hint as a key again, so the
 * client shows it in its own surface's words.
 */
export function parleyErrorFromBody(body: unknown, status: number): ParleyError {
  const error = (body as { error?: Partial<Record<keyof ErrorBody, unknown>> } | undefined)?.error;
  const code = typeof error?.code === 'string' && Object.hasOwn(ERROR_CODES, error.code) ? (error.code as ErrorCode) : 'INTERNAL';
  let message = typeof error?.message === 'string' ? error.message : `The hub answered ${status}.`;
  let hint: HintKey | undefined;
  if (isHintKey(error?.hint)) {
    const bare = withoutRestHint(message, error.hint);
    if (bare !== undefined) [message, hint] = [bare, error.hint];
  }
  return new ParleyError(code, message, {
    ...(typeof error?.field === 'string' ? { field: error.field } : {}),
    ...(error?.details !== null && typeof error?.details === 'object' ? { details: error.details as Record<string, unknown> } : {}),
    ...(hint ? { hint } : {}),
  });
}

export function isParleyError(value: unknown): value is ParleyError {
  return value instanceof ParleyError;
}

/**
 * Converts any thrown value into a ParleyError, once, at a boundary. A full,
 * read-only or forbidden disk is STORAGE_UNAVAILABLE, saying so; `place`
 * names what was being written (the home, at start).
 */
export function toParleyError(value: unknown, place = "the hub's files"): ParleyError {
  if (value instanceof ParleyError) return value;
  if (isZodError(value)) return fromZodError(value);
  const storage = storageFailureOf(value);
  if (storage) {
    return new ParleyError('STORAGE_UNAVAILABLE', describeStorageFailure(storage, place), {
      details: { code: storage.code, ...(storage.path ? { path: storage.path } : {}) },
      cause: value,
    });
  }
  const message =
    value instanceof Error
      ? value.message
      : typeof value === 'object' && value !== null && 'message' in value
        ? String((value as { message: unknown }).message)
        : String(value);
  return new ParleyError('INTERNAL', `Internal error: ${message}. This is a bug in Parley; please report it.`, {
    cause: value,
  });
}

/** A zod validation error, recognised by its shape (zod's ZodError sets this name). */
function isZodError(value: unknown): value is z.ZodError {
  return value instanceof Error && value.name === 'ZodError' && Array.isArray((value as { issues?: unknown }).issues);
}

/** Names the first offending field and says what was expected. */
export function fromZodError(error: z.ZodError, prefix?: string): ParleyError {
  const issue = error.issues[0];
  const segments = [...(prefix ? [prefix] : []), ...(issue?.path ?? []).map(String)];
  // An unknown key has no path of its own: name the key itself.
  if (issue?.code === 'unrecognized_keys' && issue.keys[0] !== undefined) segments.push(issue.keys[0]);
  const field = segments.length === 0 ? '(input)' : segments.join('.');
  if (issue?.code === 'unrecognized_keys') {
    return new ParleyError('INVALID_INPUT', `Invalid ${field}: unknown field. Remove it; check the spelling against the documented fields.`, { field });
  }
  const reason = issue ? issue.message : 'invalid value';
  let advice = ' Fix this field and try again.';
  if (issue?.code === 'too_big') {
    advice = issue.origin === 'string' || issue.origin === 'array' ? ' Shorten it and try again.' : ` Use at most ${String(issue.maximum)}.`;
  } else if (issue?.code === 'too_small' && issue.origin !== 'string' && issue.origin !== 'array') {
    advice = ` Use at least ${String(issue.minimum)}.`;
  }
  return new ParleyError('INVALID_INPUT', `Invalid ${field}: ${reason}.${advice}`, { field });
}

/** Parses `input` with `schema`, throwing INVALID_INPUT naming the field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, prefix?: string): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw fromZodError(result.error, prefix);
  return result.data;
}
