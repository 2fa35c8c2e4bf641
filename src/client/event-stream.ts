import { parleyErrorFromBody, type ParleyError } from '../errors/parley-error.js';
import type { ParleyEvent } from '../schema/event.js';

/**
 * A participant's live stream of events from the hub (server-sent events on
 * `/api/v1/stream`): one thread's, the inbox's, or the whole session's. Each
 * event carries its seq as the SSE id; a reader that reconnects with the last
 * one it handled as `lastSeq` misses nothing and is given nothing twice.
 */
export interface EventStreamChoice {
  thread?: string;
  inbox?: boolean;
  /** Start after this seq (the SSE Last-Event-ID); empty: from now. */
  lastSeq: string;
}

/** Statuses that say the stream will not be given on asking again: the token, the thread or the query is refused. */
const REFUSALS = new Set([400, 401, 403, 404]);

/**
 * Reads the stream until it ends, handing each event to `onEvent` with its
 * seq as the hub sent it. `{ refused }` when the hub refuses it; rejects when
 * the connection fails or `signal` aborts it (the caller reconnects, or stops).
 */
export async function readEventStream(
  url: string,
  token: string,
  choice: EventStreamChoice,
  signal: AbortSignal,
  onEvent: (event: ParleyEvent, seq: string) => Promise<void>,
): Promise<{ refused: ParleyError } | undefined> {
  const query = new URLSearchParams({ events_only: 'true' });
  if (choice.thread) query.set('thread', choice.thread);
  if (choice.inbox) query.set('inbox', 'true');
  const response = await fetch(`${url}/api/v1/stream?${query}`, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', ...(choice.lastSeq ? { 'last-event-id': choice.lastSeq } : {}) },
    signal,
  });
  if (REFUSALS.has(response.status)) {
    let body: unknown = {};
    try {
      body = await response.json();
    } catch {
      // Not the hub's JSON error: the status says enough.
    }
    return { refused: parleyErrorFromBody(body, response.status) };
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
      await onEvent(JSON.parse(data) as ParleyEvent, id);
    }
  }
  return undefined;
}
