/**
 * Hub B of the two-hub benchmark (bench/peer.ts), in its own process as a
 * hub on another machine would be: it opens its home, hosts @bea, takes the
 * roster and the peer it is told, and reports over IPC each message stored,
 * when it has `expect` of them, and its memory.
 */

import type { Hub } from '../src/hub/index.js';
import { PeerLinks } from '../src/peer/index.js';
import { createSilentLogger } from '../src/util/logger.js';
import { UNLIMITED_WRITES } from './core.js';
import { openBenchHub } from './open-hub.js';
import { monotonicMs } from './stats.js';

export type ChildCommand = { roster: unknown } | { add: string } | { expect: number } | { rss: true } | { stop: true };
export type ChildReport =
  | { opened: { key: string; bea: string } }
  | { listening: string }
  /** Messages stored, each with when (monotonicMs): the benchmark's clock stops then, not when A hears of it. */
  | { arrived: Array<[id: string, atMs: number]> }
  | { reached: number; ms: number }
  | { rss: number; heap: number }
  | { stopped: true };

const home = process.argv[2]!;
const report = (message: ChildReport): void => void process.send!(message);

const hub: Hub = await openBenchHub({ home, logger: createSilentLogger(), config: UNLIMITED_WRITES });
await hub.join({ handle: 'bea' });
const pubkey = hub.participantsWithAccess().find((p) => p.handle === 'bea')!.pubkey;
let count = 0;
let target: { n: number; since: number } | undefined;
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
  if (arrivals.push([event.id, monotonicMs()]) === 1) setImmediate(reportArrivals);
  if (target && count >= target.n) {
    report({ reached: count, ms: performance.now() - target.since });
    target = undefined;
  }
});
let links: PeerLinks | undefined;
let linksStartedAt = 0;
const startLinks = async (): Promise<void> => {
  linksStartedAt = performance.now();
  links = await PeerLinks.start({ hub, home, listen: ['/ip4/127.0.0.1/tcp/0'], logger: createSilentLogger(), redialMs: 20, maxRedialMs: 200 });
  report({ listening: links.addrs()[0]! });
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
    else if ('expect' in command) {
      // How long after the links started the hub held `expect` messages.
      target = { n: command.expect, since: linksStartedAt };
      if (count >= command.expect) report({ reached: count, ms: performance.now() - linksStartedAt });
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
