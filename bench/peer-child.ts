/**
 * Hub B of the two-hub benchmark (bench/peer.ts), in its own process as a
 * hub on another machine would be: it opens its home, hosts @bea, takes the
 * roster and the peer it is told, and reports over IPC each message stored,
 * when it has `expect` of them, and its memory.
 */

import type { Hub } from '../src/hub/index.js';
import { PeerLinks } from '../src/peer/index.js';
import { createSilentLogger, createStderrLogger } from '../src/util/logger.js';
import { UNLIMITED_WRITES } from './core.js';
import { openBenchHub } from './open-hub.js';
import { monotonicMs } from './stats.js';

export type ChildCommand =
  | { roster: unknown }
  | { add: string }
  | { expect: number }
  /** Cuts the links to these hubs (peer block); `unblock` lifts one and measures, from then, until `expect` messages more are stored. */
  | { block: string[] }
  | { unblock: string; expect: number }
  | { rss: true }
  | { stop: true };
export type ChildReport =
  | { opened: { key: string; bea: string } }
  | { listening: string }
  /** Messages stored, each with when (monotonicMs): the benchmark's clock stops then, not when A hears of it. */
  | { arrived: Array<[id: string, atMs: number]> }
  /** `expect` reached: ms from the links' start; when the link to a peer was up and the first message stored (ms from the start too). */
  | { reached: number; ms: number; linkedMs: number; firstMs: number }
  | { rss: number; heap: number }
  | { blocked: true }
  | { stopped: true };

const home = process.argv[2]!;
const report = (message: ChildReport): void => void process.send!(message);

// Every event kept (the history benchmark's channel holds 100,000): retention is not what it measures.
const hub: Hub = await openBenchHub({ home, logger: createSilentLogger(), config: { ...UNLIMITED_WRITES, retention: { messages: 1_000_000 } } });
await hub.join({ handle: 'bea' });
const pubkey = hub.participantsWithAccess().find((p) => p.handle === 'bea')!.pubkey;
let count = 0;
let target: { n: number; since: number } | undefined;
/** When the links were first up, and the first message stored after they started (performance.now()). */
let linkedAt = 0;
let firstAt = 0;
// Arrivals go to A in one IPC message per turn of the event loop, not one per event: the report is the
// benchmark's cost, not the hub's, and 5,000 messages a second would take a good part of both processes' time.
let arrivals: Array<[string, number]> = [];
const reportArrivals = (): void => {
  report({ arrived: arrivals });
  arrivals = [];
};
hub.onEvents('default', (event) => {
  if (event.type !== 'message') return;
  count += 1;
  if (firstAt === 0 && linksStartedAt > 0) {
    firstAt = performance.now();
    if (process.env.BENCH_CHILD_LOG) process.stderr.write(`first at ${new Date().toISOString()}\n`);
  }
  if (arrivals.push([event.id, monotonicMs()]) === 1) setImmediate(reportArrivals);
  if (target && count >= target.n) reachedTarget();
});
let links: PeerLinks | undefined;
let linksStartedAt = 0;
const reachedTarget = (): void => {
  const since = target!.since;
  report({ reached: count, ms: performance.now() - since, linkedMs: linkedAt - since, firstMs: firstAt - since });
  target = undefined;
};
const startLinks = async (): Promise<void> => {
  linksStartedAt = performance.now();
  links = await PeerLinks.start({ hub, home, listen: ['/ip4/127.0.0.1/tcp/0'], logger: process.env.BENCH_CHILD_LOG ? createStderrLogger(process.env.BENCH_CHILD_LOG === 'debug' ? 'debug' : 'info') : createSilentLogger(), redialMs: 20, maxRedialMs: 200 });
  report({ listening: links.addrs()[0]! });
  watchLink();
};
/** Notes when the link to `key` (any link, by default) is up, its hello exchanged: what arrives after is measured from then. */
const watchLink = (key?: string): void => {
  linkedAt = 0;
  const watch = setInterval(() => {
    if (!links?.list().some((peer) => peer.state === 'connected' && (key === undefined || peer.key === key))) return;
    linkedAt = performance.now();
    if (process.env.BENCH_CHILD_LOG) process.stderr.write(`linked at ${new Date().toISOString()}\n`);
    clearInterval(watch);
  }, 1);
};
// Reopened on a home that holds a roster already: the links start at once (and dial the kept peer).
if (hub.roster().current) await startLinks();
report({ opened: { key: hub.peerIdentity().key, bea: pubkey } });

process.on('message', (command: ChildCommand) => {
  void (async () => {
    if ('roster' in command) {
      await hub.acceptRoster(command.roster);
      await startLinks();
    } else if ('add' in command) await links!.add(command.add);
    else if ('expect' in command && !('unblock' in command)) {
      // How long after the links started the hub held `expect` messages.
      target = { n: command.expect, since: linksStartedAt };
      if (count >= command.expect) reachedTarget();
    } else if ('block' in command) {
      for (const key of command.block) await links!.block(key, 3_600_000);
      report({ blocked: true });
    } else if ('unblock' in command) {
      // Measured from here: the link to `unblock` comes back, and the messages missed meanwhile arrive.
      count = 0;
      firstAt = 0;
      linksStartedAt = performance.now();
      target = { n: command.expect, since: linksStartedAt };
      watchLink(command.unblock);
      links!.unblock(command.unblock);
    } else if ('rss' in command) {
      // The JS heap after a collection (the child runs with --expose-gc): what RSS holds beside it is native memory.
      (globalThis as { gc?: () => void }).gc?.();
      const { rss, heapUsed } = process.memoryUsage();
      report({ rss: rss / 1024 / 1024, heap: heapUsed / 1024 / 1024 });
    }
    else if ('stop' in command) {
      await links?.stop();
      await hub.close();
      report({ stopped: true });
      process.disconnect();
    }
  })();
});
