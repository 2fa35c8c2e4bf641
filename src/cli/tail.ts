import { parseArgs } from 'node:util';
import type { ParleyEvent } from '../schema/event.js';
import { formatEvent, tokenFor } from './conversation.js';
import { parleyErrorFromBody } from '../errors/parley-error.js';
import { hubUrl } from './hub-client.js';

/**
 * `parley tail [THREAD] [--inbox]`: follows a thread, the inbox or the whole
 * session live over the SSE stream. When the connection drops (the hub
 * restarts, the network blinks) it reconnects with the last seq it printed,
 * so nothing is missed and nothing is printed twice.
 */
const HELP = `Usage: parley tail [THREAD] [--inbox] [--since SEQ] [--as HANDLE] [--session NAME] [--json]

Follows THREAD (or the inbox with --inbox, or the whole session) live, and
reconnects without loss until interrupted.
`;

export const RECONNECT_DELAY_MS = 500;

export async function tail(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      inbox: { type: 'boolean' },
      since: { type: 'string' },
      as: { type: 'string' },
      session: { type: 'string' },
      home: { type: 'string' },
      url: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (positionals.length > 1) {
    process.stderr.write('parley: usage: parley tail [THREAD] [--inbox]; run "parley tail --help".\n');
    return 2;
  }
  const token = tokenFor(values);
  const query = new URLSearchParams({ events_only: 'true' });
  if (positionals[0]) query.set('thread', positionals[0]);
  if (values.inbox) query.set('inbox', 'true');
  let lastSeq = values.since ?? '';
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  while (!stop.signal.aborted) {
    try {
      const response = await fetch(`${hubUrl(values)}/api/v1/stream?${query}`, {
        headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', ...(lastSeq ? { 'last-event-id': lastSeq } : {}) },
        signal: stop.signal,
      });
      if (response.status === 401 || response.status === 400 || response.status === 404 || response.status === 403) {
        const body: unknown = await response.json().catch(() => ({}));
        process.stderr.write(`parley: ${parleyErrorFromBody(body, response.status).messageFor('cli')}\n`);
        return 1;
      }
      if (!response.ok || !response.body) throw new Error(`status ${response.status}`);
      let buffer = '';
      for await (const chunk of response.body.pipeThrough(new TextDecoderStream())) {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const id = /^id: ?(.*)$/m.exec(frame)?.[1];
          const data = [...frame.matchAll(/^data: ?(.*)$/gm)].map((m) => m[1]).join('\n');
          if (!id || !data) continue;
          const event = JSON.parse(data) as ParleyEvent;
          process.stdout.write(`${values.json ? JSON.stringify(event) : formatEvent(event)}\n`);
          lastSeq = id;
        }
      }
    } catch {
      if (stop.signal.aborted) break;
    }
    // The stream ended or failed: wait a moment and resume from the last seq printed.
    await new Promise((resolve) => setTimeout(resolve, RECONNECT_DELAY_MS));
  }
  return 0;
}
