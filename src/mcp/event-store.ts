import type { EventStore } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * Resumability for one MCP HTTP session: the messages sent on its SSE
 * streams, kept so that a client reconnecting with Last-Event-ID gets what it
 * missed. Bounded: only the last `capacity` messages are kept (a client that
 * was away longer re-reads state with tools/list and inbox). Event ids are
 * `<stream>:<n>`, so the stream of an id is known without a lookup table.
 */
export class SessionEventStore implements EventStore {
  readonly #events: Array<{ id: string; stream: string; n: number; message: JSONRPCMessage }> = [];
  #next = 0;

  constructor(private readonly capacity = 256) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const n = ++this.#next;
    const id = `${streamId}:${n}`;
    this.#events.push({ id, stream: streamId, n, message });
    if (this.#events.length > this.capacity) this.#events.shift();
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    const cut = eventId.lastIndexOf(':');
    return cut > 0 ? eventId.slice(0, cut) : undefined;
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const cut = lastEventId.lastIndexOf(':');
    const stream = cut > 0 ? lastEventId.slice(0, cut) : '';
    const after = Number(lastEventId.slice(cut + 1));
    for (const event of this.#events) {
      if (event.stream === stream && event.n > after) await send(event.id, event.message);
    }
    return stream;
  }
}
