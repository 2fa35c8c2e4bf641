import type { ServerResponse } from 'node:http';
import type { LiveItem } from '../hub/index.js';

/**
 * Server-Sent Events framing and writing, straight onto the Node response.
 * One live item goes to every subscriber that wants it, so its frame is
 * serialised and encoded to bytes once and the same buffer is written to
 * every socket (keyed by the item object); a string would be encoded again
 * for each subscriber. Writing to the Node response directly avoids a web
 * stream per connection.
 */
const frames = new WeakMap<LiveItem, Buffer>();

export function sseFrame(item: LiveItem): Buffer {
  let frame = frames.get(item);
  if (frame === undefined) {
    frame = Buffer.from(serialise(item), 'utf8');
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

export interface SseWriterOptions {
  /** A client that has not taken what was written within this long is dropped. */
  stallTimeoutMs: number;
  /** Told once why a client was dropped. */
  onDrop: (reason: string) => void;
}

/**
 * Writes frames to one SSE client with a bounded buffer: once the socket's
 * buffer is over its high-water mark, the writer waits for it to drain (so
 * at most one frame sits above it), and a client that stops reading for
 * `stallTimeoutMs` is dropped with a reason instead of being kept forever.
 * Keep-alives are written only while nothing is waiting, so a stalled client
 * never accumulates writes or listeners.
 */
export class SseWriter {
  #closed = false;
  #draining: Promise<void> | undefined;
  /** Told once the socket has drained, for writers that do not await (offer). */
  #afterDrain: Array<() => void> = [];

  constructor(
    private readonly response: ServerResponse,
    private readonly options: SseWriterOptions,
  ) {
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

  /** Writes one frame; resolves when the socket can take more (or the client was dropped). */
  async write(frame: string | Buffer): Promise<void> {
    if (this.#draining) await this.#draining;
    if (this.#closed || this.response.writableEnded) return;
    if (this.response.write(frame)) return;
    this.#draining = this.#waitForDrain();
    await this.#draining;
  }

  /**
   * Writes one frame now, for a caller that cannot wait (a live subscription
   * in push mode): true if the client can take more at once; false if the
   * socket's buffer is full, and then `onDrained` runs once it has drained (or
   * the client was dropped).
   */
  offer(frame: Buffer, onDrained: () => void): boolean {
    if (this.#closed || this.response.writableEnded) return true;
    if (!this.#draining) {
      if (this.response.write(frame)) return true;
      this.#draining = this.#waitForDrain();
    }
    this.#afterDrain.push(onDrained);
    return false;
  }

  /** A keep-alive comment, skipped while the client has not taken the last write. */
  keepAlive(): void {
    if (this.#closed || this.#draining) return;
    this.response.write(': keep-alive\n\n');
  }

  /** Ends the stream at once (e.g. its credential was revoked), after a last frame if one is given. */
  close(lastFrame?: string): void {
    if (this.#closed) return;
    if (lastFrame !== undefined && !this.#draining) this.response.write(lastFrame);
    this.end();
  }

  end(): void {
    if (!this.#closed && !this.response.writableEnded) this.response.end();
  }

  #waitForDrain(): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(stall);
        this.response.off('drain', done);
        this.response.off('close', done);
        this.#draining = undefined;
        resolve();
        for (const callback of this.#afterDrain.splice(0)) callback();
      };
      const stall = setTimeout(() => {
        const unsent = this.response.writableLength;
        this.options.onDrop(`the client took nothing for ${this.options.stallTimeoutMs} ms with ${unsent} bytes waiting`);
        this.#closed = true;
        this.response.destroy();
        done();
      }, this.options.stallTimeoutMs);
      this.response.once('drain', done);
      this.response.once('close', done);
    });
  }
}
