// Acknowledging targeted items: the last of their delivery states (see delivery-view.ts).

import { ParleyError, parseInput } from '../errors/parley-error.js';
import { AckInputSchema, type AckInput } from '../schema/inputs.js';
import type { Caller } from './records.js';
import { mayRead } from './channel-access.js';
import type { HubContext } from './context.js';
import { writeNow } from './writer.js';
import type { AckResult } from './answers.js';

export async function acknowledge(ctx: HubContext, caller: Caller, input: AckInput): Promise<AckResult> {
  const parsed = parseInput(AckInputSchema, input);
  const me = caller.participant.id;
  const seqs: number[] = [];
  const notTargeted: string[] = [];
  parsed.ids.forEach((id, i) => {
    const row = ctx.store.events.byId(id);
    const thread = row ? ctx.state.threads.get(row.thread_id) : undefined;
    if (!row || row.session_id !== caller.session.id || (thread && !mayRead(ctx, thread, me))) {
      throw new ParleyError('NOT_FOUND', `No event ${id} in session "${caller.session.name}"; check ids.${i}.`, { field: `ids.${i}` });
    }
    if (ctx.store.deliveries.get(me, row.seq)) seqs.push(row.seq);
    else notTargeted.push(id);
  });
  const now = ctx.now();
  const { value, committed } = writeNow(ctx, () => seqs.filter((seq) => ctx.store.deliveries.acknowledge(me, seq, now)).length);
  // An acknowledgement is reported only once it is durable.
  await committed;
  return { acknowledged: value, not_targeted: notTargeted };
}
