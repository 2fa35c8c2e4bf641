import { DEFAULT_TAIL_LAST, MAX_READ_LIMIT } from '../config/defaults.js';
import { ParleyError } from '../errors/parley-error.js';
import type { ParleyEvent } from '../schema/event.js';
import type { CommandArgs, CommandRun } from './command.js';
import type { TAIL_OPTIONS } from './command-options.js';
import { formatEvent, handleBookFor } from './event-lines.js';
import { hubUrl } from '../client/hub-address.js';
import { readEventStream } from '../client/event-stream.js';
import { OneShotJson } from '../client/one-shot-json.js';
import { ParticipantRoutes } from '../client/participant-routes.js';
import { tokenFor } from './rest-command.js';
import { styleFor } from './style.js';
import { terminalJson, terminalText } from './terminal-text.js';

/**
 * `parley tail [THREAD] [--inbox]`: follows a thread, the inbox or the whole
 * session live over the SSE stream. A thread's tail first prints its last few
 * events (--last) and then follows from the last one printed, so the seam
 * between history and live neither repeats nor drops an event. When the
 * connection drops (the hub restarts, the network blinks) it reconnects with
 * the last seq it printed, so nothing is missed and nothing is printed twice.
 */
const HELP = `Usage: parley tail [THREAD] [--last N] [--inbox] [--since SEQ] [--as HANDLE] [--session NAME] [--json]

Follows THREAD (or the inbox with --inbox, or the whole session) live, and
reconnects without loss until interrupted. Marks nothing read.

  --last N     Print THREAD's last N events first (default ${DEFAULT_TAIL_LAST}; 0 for none)
  --since SEQ  Print every event after SEQ first instead
`;

export const RECONNECT_DELAY_MS = 500;

export const tail: CommandRun<typeof TAIL_OPTIONS> = { help: HELP, run: follow };

async function follow({ values, positionals }: CommandArgs<typeof TAIL_OPTIONS>): Promise<number> {
  if (positionals.length > 1) {
    process.stderr.write('parley: usage: parley tail [THREAD] [--last N] [--inbox]; run "parley tail --help".\n');
    return 2;
  }
  const thread = positionals[0];
  if (values.last !== undefined && (thread === undefined || values.inbox)) {
    throw new ParleyError('INVALID_INPUT', 'Invalid --last: it prints a thread\'s last events, so it needs a THREAD (and no --inbox).', { field: 'last' });
  }
  if (values.last !== undefined && values.since !== undefined) {
    throw new ParleyError('INVALID_INPUT', 'Invalid --last: give --last N or --since SEQ, not both.', { field: 'last' });
  }
  const last = values.last === undefined ? DEFAULT_TAIL_LAST : Number(values.last);
  if (!/^\d+$/.test(values.last ?? '0') || last > MAX_READ_LIMIT) {
    throw new ParleyError('INVALID_INPUT', `Invalid --last: "${values.last}" is not a whole number from 0 to ${MAX_READ_LIMIT}.`, { field: 'last' });
  }
  const token = tokenFor(values);
  const url = await hubUrl(values);
  const api = new ParticipantRoutes(new OneShotJson(url, token));
  const book = handleBookFor(api);
  const style = styleFor(process.stdout);
  const print = async (event: ParleyEvent): Promise<void> => {
    if (!values.json) await book.learn([event]);
    process.stdout.write(`${values.json ? terminalJson(event) : formatEvent(event, style, book.handleOf)}\n`);
  };
  let lastSeq = values.since ?? '';
  if (thread && !values.inbox && values.since === undefined && last > 0) {
    // The stream then starts after the last event printed: since 0 when the thread had none yet.
    const recent = await api.history({ thread, limit: last });
    for (const event of recent.events) await print(event);
    lastSeq = String(recent.events.at(-1)?.seq ?? 0);
  }
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  while (!stop.signal.aborted) {
    try {
      const choice = { ...(thread ? { thread } : {}), ...(values.inbox ? { inbox: true } : {}), lastSeq };
      const ended = await readEventStream(url, token, choice, stop.signal, async (event, seq) => {
        await print(event);
        lastSeq = seq;
      });
      if (ended?.refused) {
        process.stderr.write(`parley: ${terminalText(ended.refused.messageFor('cli'), 'one line')}\n`);
        return 1;
      }
    } catch {
      // A dropped connection or a hub restarting: reconnected below, from the last seq printed; an interrupt ends the tail.
      if (stop.signal.aborted) break;
    }
    // The stream ended or failed: wait a moment and resume from the last seq printed.
    await new Promise((resolve) => setTimeout(resolve, RECONNECT_DELAY_MS));
  }
  return 0;
}
