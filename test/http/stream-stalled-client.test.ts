import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryLogger, type MemoryLogger } from '../../src/util/logger.js';
import { testHubsClosedAfterEach } from '../helpers/hub.js';

/**
 * A live-stream reader that connects and then never reads: the hub keeps a
 * bounded buffer for it, writes no keep-alives on top of a full buffer (so no
 * listeners pile up), and drops it with a logged reason once it has taken
 * nothing for sseStallTimeoutMs.
 */
const hubs = testHubsClosedAfterEach();
let socket: net.Socket | undefined;
afterEach(() => {
  socket?.destroy();
});

describe('stalled live-stream client', () => {
  it('stalled client - a reader that never reads is dropped with a logged reason, and keep-alives pile up no listeners', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    try {
      const t = await hubs.open({ config: { chat: { limits: { writesPerMinute: 0 } }, server: { sseKeepAliveMs: 10, sseStallTimeoutMs: 1500 } } });
      const writer = await t.hub.join({ handle: 'writer', session: 's' });
      await t.hub.join({ handle: 'sleeper', session: 's' });
      const token = await t.hub.issueToken('sleeper', 's');
      const logger: MemoryLogger = createMemoryLogger();
      const server = await hubs.serve(t, { logger });

      // A raw client: sends the request, then never reads a byte.
      socket = net.connect(server.port, '127.0.0.1');
      await new Promise((resolve) => socket!.once('connect', resolve));
      socket.pause();
      socket.write(`GET /api/v1/stream?events_only=true HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Bearer ${token}\r\n\r\n`);
      await expect.poll(() => t.hub.stats().liveListeners, { timeout: 5000 }).toBe(1);

      // Far more than loopback's socket buffers hold: the hub's side fills up.
      const text = 'x'.repeat(4000);
      for (let i = 0; i < 6000; i++) void writer.post({ thread: 'general', text: `${i} ${text}` });
      await writer.post({ thread: 'general', text: 'last' });

      await expect.poll(() => logger.records.find((r) => r.msg === 'live stream client dropped'), { timeout: 15_000 }).toMatchObject({
        level: 'warn',
        participant: 'sleeper',
        reason: expect.stringMatching(/took nothing for 1500 ms with \d+ bytes waiting/),
      });
      await expect.poll(() => t.hub.stats().liveListeners, { timeout: 5000 }).toBe(0);
      expect(warnings.filter((w) => w.includes('MaxListenersExceeded'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
