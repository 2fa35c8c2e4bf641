import { ParleyError } from '../errors/parley-error.js';
import type { HubContext } from './context.js';

/** Refuses text over the hub's input limit (PAYLOAD_TOO_LARGE) or blank (INVALID_INPUT), naming the field. */
export function assertTextSize(ctx: Pick<HubContext, 'config'>, text: string, field: string): void {
  const max = ctx.config.chat.limits.maxInputChars;
  if (text.length > max) {
    throw new ParleyError('PAYLOAD_TOO_LARGE', `${field} is ${text.length} characters, over the hub's input limit of ${max}. Send a shorter text or reference a file.`, { field });
  }
  if (text.trim() === '') throw new ParleyError('INVALID_INPUT', `Invalid ${field}: must not be empty.`, { field });
}
