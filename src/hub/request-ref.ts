// A request named by its id or by an unambiguous part of it: its start or its
// end, as people copy it from a listing (the CLI shows a ULID's last
// characters, which tell requests apart; its first ones are the time). Only
// requests the caller can see count, so an abbreviation says nothing about
// others' requests.

import { ParleyError } from '../errors/parley-error.js';
import type { RequestRow } from '../store/request-store.js';
import type { HubContext } from './context.js';
import type { Caller } from './records.js';
import { mayRead } from './channel-access.js';

export const MIN_REQUEST_ID_ABBREVIATION = 4;

/** Listed in an ambiguity error, at most. */
const AMBIGUOUS_SHOWN = 5;

/** The request named, or undefined when none is (the caller says what is not found). */
export function findRequest(ctx: HubContext, caller: Caller, ref: string, field: string): RequestRow | undefined {
  const exact = ctx.store.requests.get(ref);
  if (exact) return exact;
  if (ref.length < MIN_REQUEST_ID_ABBREVIATION) return undefined;
  const visible = ctx.store.requests.abbreviated(caller.session.id, ref, ctx.store.events.visibleUpTo).filter((row) => {
    const thread = ctx.state.threads.get(row.thread_id);
    return thread !== undefined && mayRead(ctx, thread, caller.participant.id);
  });
  if (visible.length <= 1) return visible[0];
  const shown = visible.slice(0, AMBIGUOUS_SHOWN).map((row) => `${row.request_id} (${row.intent})`);
  const others = visible.length > AMBIGUOUS_SHOWN ? ` and ${visible.length - AMBIGUOUS_SHOWN} more` : '';
  throw new ParleyError(
    'INVALID_INPUT',
    `Invalid ${field}: "${ref}" matches ${visible.length} requests: ${shown.join(', ')}${others}. Give more of the id, or the whole id.`,
    { field },
  );
}
