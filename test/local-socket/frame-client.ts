import net from 'node:net';

/** A raw client of the hub's local socket for tests: writes lines, reads answer frames as they come. */
export interface FrameClient {
  send(frame: unknown): void;
  sendRaw(text: string): void;
  /** The next answer frame with this id (null: frames the hub could not read). */
  answer(id: number | null): Promise<Record<string, unknown>>;
  /** Resolves when the hub closes the connection. */
  closed: Promise<void>;
  close(): void;
}

export async function frameClient(file: string): Promise<FrameClient> {
  const socket = net.connect(file);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.setEncoding('utf8');
  const frames: Array<Record<string, unknown>> = [];
  const waiting: Array<{ id: number | null; resolve: (frame: Record<string, unknown>) => void }> = [];
  let pending = '';
  const deliver = (): void => {
    for (const waiter of [...waiting]) {
      const at = frames.findIndex((frame) => frame.id === waiter.id);
      if (at < 0) continue;
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve(frames.splice(at, 1)[0]!);
    }
  };
  socket.on('data', (chunk: string) => {
    pending += chunk;
    let end = pending.indexOf('\n');
    while (end >= 0) {
      frames.push(JSON.parse(pending.slice(0, end)) as Record<string, unknown>);
      pending = pending.slice(end + 1);
      end = pending.indexOf('\n');
    }
    deliver();
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    send: (frame) => socket.write(`${JSON.stringify(frame)}\n`),
    sendRaw: (text) => socket.write(text),
    answer: (id) =>
      new Promise((resolve) => {
        waiting.push({ id, resolve });
        deliver();
      }),
    closed,
    close: () => socket.destroy(),
  };
}
