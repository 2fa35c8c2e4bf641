import { expect } from 'vitest';

/** Server-Sent Events as a client reads them: one frame at a time. */
export interface SseFrame {
  id?: string;
  event?: string;
  data: string;
}

/** Opens an SSE stream and returns a reader of frames, and a way to drop the connection. */
export async function openStream(url: string, token: string, lastEventId?: string) {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const next = async (): Promise<SseFrame> => {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const raw = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (raw.startsWith(':')) continue;
        const frame: SseFrame = { data: '' };
        for (const line of raw.split('\n')) {
          const [field, ...rest] = line.split(':');
          const value = rest.join(':').replace(/^ /, '');
          if (field === 'id') frame.id = value;
          else if (field === 'event') frame.event = value;
          else if (field === 'data') frame.data += value;
        }
        return frame;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error('stream ended');
      buffer += value;
    }
  };
  return { next, drop: () => controller.abort() };
}

