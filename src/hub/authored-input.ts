// What an author supplies besides message text passes the secret scanner
// before it is stored or published. Message texts (and side-channel summaries,
// request and response notes, meeting lines) go through `ctx.redactor.apply`,
// which also truncates and appends the note.

import { ParleyError } from '../errors/parley-error.js';
import { redactAuthored, type AuthoredRedaction } from '../redaction/authored.js';
import type { HubContext } from './context.js';

/** Free text and JSON (titles, tags, notes, profiles, params, results): secrets become `[redacted]` in place. */
export function redactInput<T>(ctx: HubContext, value: T): Promise<AuthoredRedaction<T>> {
  return redactAuthored(ctx.redactor, value, ctx.config.requests.maxJsonDepth);
}

/**
 * Names that others use to address something (a channel, a request id) cannot
 * be rewritten to `[redacted]` without breaking the address, so one that holds
 * a secret is refused instead. A scanner failure lets it through, as for text.
 */
export async function refuseSecretName(ctx: HubContext, name: string, field: string): Promise<void> {
  const found = await ctx.redactor.find([name]);
  if ((found.spans[0] ?? []).length === 0) return;
  throw new ParleyError('INVALID_INPUT', `Invalid ${field}: it contains what looks like a secret (a token or key), and ${field} is shown to others. Choose another.`, {
    field,
  });
}
