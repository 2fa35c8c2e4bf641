import { openBenchHub } from './open-hub.js';
import { createSilentLogger } from '../src/util/logger.js';

/**
 * Opens a hub on an existing home (argv[2]), exercises it (reads, inbox, a few
 * hundred posts), and prints its resident set size as JSON. Run as its own
 * process so the figure is the hub's alone.
 */
const home = process.argv[2];
if (!home) throw new Error('usage: rss-probe HOME');
// A few hundred posts in a row on purpose: the write limit is off, as in the rest of the bench.
const hub = await openBenchHub({ home, logger: createSilentLogger(), config: { chat: { limits: { writesPerMinute: 0 } } } });
const reader = hub.actor('reader', 'bench');
const writer = hub.actor('writer', 'bench');
for (let i = 0; i < 200; i++) await reader.history({ thread: "general", limit: 200, before: Math.max(1, hub.stats().lastSeq - i * 1000) });
await reader.peek({ limit: 200 });
await reader.search({ query: 'eviction policy' });
for (let i = 0; i < 500; i++) await writer.post({ thread: 'general', text: `probe ${i} the cache layer needs an eviction policy` });
await reader.readNew({ thread: 'general', limit: 1000 });
globalThis.gc?.();
const rssMb = process.memoryUsage().rss / 1024 / 1024;
const events = hub.stats().events;
await hub.close();
process.stdout.write(`${JSON.stringify({ events, rssMb })}\n`);
