import type { ServerResponse } from 'node:http';
import type { LiveItem } from '../hub/live-bus.js';

/**
 * Server-Sent Events framing and writing, straight onto the Node response.
 * One live item goes to every subscriber that wants it, so its frame is
 * serialised once and shared (keyed by the item object) instead of once per
 * subscriber; writing plain strings to the socket avoids a web stream per
 * connection.
 */
const frames = new WeakMap<LiveItem, string>();

export function sseFrame(item: LiveItem): string {
  let frame = frames.get(item);
  if (frame === undefined) {
    frame = serialise(item);
    frames.set(item, frame);
  }
  return frame;
}

function serialise(item: LiveItem): string {
  // JSON.stringify never emits a raw newline, so each payload is one `data:` line.
  if (item.kind === 'event') return `id: ${item.event.seq}\nevent: event\ndata: ${JSON.stringify(item.event)}\n\n`;
  if (item.kind === 'presence') return `event: presence\ndata: ${JSON.stringify(item.presence)}\n\n`;
  const { kind: _kind, session: _session, ...meeting } = item;
  return `event: meeting\ndata: ${JSON.stringify(meeting)}\n\n`;
}

export function sseErrorFrame(error: unknown): string {
  const body = (error as { toJSON?: () => unknown }).toJSON?.() ?? { code: 'INTERNAL', message: String(error) };
  return `event: error\ndata: ${JSON.stringify({ error: body })}\n\n`;
}

export class SseWriter {
  #closed = false;

  constructor(private readonly response: ServerResponse) {
    response.once('close', () => (this.#closed = true));
  }

  get closed(): boolean {
    return this.#closed;
  }

  open(): void {
    this.response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      // Proxies that buffer responses would hold events back.
      'x-accel-buffering': 'no',
    });
    this.response.flushHeaders();
  }

  /** Writes one frame; resolves when the socket can take more (backpressure). */
  async write(frame: string): Promise<void> {
    if (this.#closed) return;
    if (this.response.write(frame)) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.response.off('drain', done);
        this.response.off('close', done);
        resolve();
      };
      this.response.once('drain', done);
      this.response.once('close', done);
    });
  }

  end(): void {
    if (!this.#closed && !this.response.writableEnded) this.response.end();
  }
}
