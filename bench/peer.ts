/**
 * Two hubs linked on loopback (libp2p over TCP), each in its own process as
 * on two machines: hub A here, hub B a child (bench/peer-child.ts). How soon
 * an event posted on A is in a participant's inbox on B, how many events a
 * second cross, how soon a B that was stopped has what it missed, how long a
 * link takes to carry its first event, and the memory of both hubs under a
 * steady stream.
 */

import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Actor, Hub } from '../src/hub/index.js';
import { PeerLinks } from '../src/peer/index.js';
import { formatPublicKey } from '../src/trust/node-id.js';
import { signRoster } from '../src/trust/roster.js';
import { createSilentLogger } from '../src/util/logger.js';
import { chatText, tempDir, UNLIMITED_WRITES } from './core.js';
import { openBenchHub } from './open-hub.js';
import type { ChildCommand, ChildReport } from './peer-child.js';
import { monotonicMs, summarize, type Summary } from './stats.js';

export interface PeerBenchResult {
  /**
   * A DM posted on A, to the moment B stored it (in @bea's inbox), one at a
   * time: B reads the machine's monotonic clock then, so the time its report
   * takes to reach A is not counted.
   */
  latency: Summary;
  /** Events posted on A by 100 posters: A's own rate, and the rate at which B had them all. */
  throughput: { events: number; localPerSecond: number; linkedPerSecond: number };
  /** 1,000 events posted while B was stopped: from B's links starting to the last one stored on B. */
  catchUpMs: number;
  /** From B's `peer add` to the first event of A stored on B. */
  linkSetupMs: number;
  /** Each hub's process under a steady 1,000 events/s. */
  rss: { seconds: number; a: HubMemory; b: HubMemory; series: MemorySample[] };
}

/** One hub's memory at the start and the end of the steady stream: RSS, and the JS heap after a collection. */
export interface HubMemory {
  startMb: number;
  endMb: number;
  heapStartMb: number;
  heapEndMb: number;
}

/** Both hubs' memory every 30 s of the steady stream. */
export interface MemorySample {
  seconds: number;
  aMb: number;
  aHeapMb: number;
  bMb: number;
  bHeapMb: number;
}

const POSTERS = 100;
const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'peer-child.js');

/** Hub B, in its child process: commands out, reports in. */
export class HubB {
  readonly #child: ChildProcess;
  /** Who waits for which message, told when B stored it (monotonicMs). */
  readonly #arrived = new Map<string, (atMs: number) => void>();
  readonly #waiting: Array<{ test: (report: ChildReport) => boolean; resolve: (report: ChildReport) => void }> = [];
  count = 0;
  /** When B stored the last message it reported (monotonicMs). */
  lastAtMs = 0;

  constructor(home: string) {
    this.#child = fork(CHILD, [home], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [...process.execArgv, '--expose-gc'] });
    this.#child.on('message', (report: ChildReport) => {
      if ('arrived' in report) {
        this.count += report.arrived.length;
        for (const [id, atMs] of report.arrived) {
          this.lastAtMs = Math.max(this.lastAtMs, atMs);
          this.#arrived.get(id)?.(atMs);
          this.#arrived.delete(id);
        }
        return;
      }
      const at = this.#waiting.findIndex((waiter) => waiter.test(report));
      if (at >= 0) this.#waiting.splice(at, 1)[0]!.resolve(report);
    });
  }

  get pid(): number {
    return this.#child.pid!;
  }

  send(command: ChildCommand): void {
    this.#child.send(command);
  }

  next<K extends string>(key: K): Promise<Extract<ChildReport, Record<K, unknown>>> {
    return new Promise((resolve, reject) => {
      const exited = (code: number | null): void => reject(new Error(`hub B exited (${code}) before "${key}"`));
      this.#child.once('exit', exited);
      const arrived = (report: ChildReport): void => {
        this.#child.off('exit', exited);
        (resolve as (report: ChildReport) => void)(report);
      };
      this.#waiting.push({ test: (report) => key in report, resolve: arrived });
    });
  }

  /** Resolves with when B stored message `id` (monotonicMs). */
  arrival(id: string): Promise<number> {
    return new Promise((resolve) => this.#arrived.set(id, resolve));
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.#child.once('exit', resolve));
    this.send({ stop: true });
    await exited;
  }

  kill(): void {
    this.#child.kill('SIGKILL');
  }
}

export async function peerBench(options: { events: number; latencySamples: number; rssSeconds: number }): Promise<PeerBenchResult> {
  const homes = [tempDir('parley-bench-peer-a-'), tempDir('parley-bench-peer-b-')];
  const hub: Hub = await openBenchHub({ home: homes[0]!, logger: createSilentLogger(), config: UNLIMITED_WRITES });
  let links: PeerLinks | undefined;
  let b = new HubB(homes[1]!);
  try {
    const posters: Actor[] = [];
    for (let i = 0; i < POSTERS; i++) posters.push(await hub.join({ handle: `ann-${i}` }));
    const { opened } = await b.next('opened');
    const hubKey = hub.internals.ctx.keys.hub();
    const members = [
      { pubkey: formatPublicKey(hubKey.raw), role: 'admin' as const, kind: 'hub' as const },
      { pubkey: opened.key, role: 'member' as const, kind: 'hub' as const },
      ...hub.participantsWithAccess().map((p) => ({ pubkey: p.pubkey, role: 'operator' as const })),
      { pubkey: opened.bea, role: 'operator' as const },
    ];
    const roster = signRoster({ org_id: 'bench', version: 1, timestamp: '2026-11-28T00:00:00Z', members, signatures: [] }, hubKey.privateKey);
    await hub.acceptRoster(roster);
    links = await PeerLinks.start({ hub, home: homes[0]!, listen: ['/ip4/127.0.0.1/tcp/0'], logger: createSilentLogger(), redialMs: 20, maxRedialMs: 200 });
    b.send({ roster });
    await b.next('listening');

    // Link set-up: an event waits on A; B adds A; the clock runs until B has stored it.
    const waiting = await posters[0]!.post({ thread: 'general', text: 'waiting for the link' });
    const stored = b.arrival(waiting.id);
    const setupStart = monotonicMs();
    b.send({ add: links.addrs()[0]! });
    const linkSetupMs = (await stored) - setupStart;
    // B's hello registered @bea here once the link was up.
    while (!hub.participant('bea')) await new Promise((resolve) => setTimeout(resolve, 5));

    // Latency: a DM to @bea, one at a time, until B has stored it (it is then in her inbox).
    const samples: number[] = [];
    for (let i = 0; i < options.latencySamples; i++) {
      const start = monotonicMs();
      const sent = await posters[0]!.dm({ to: 'bea', text: `ping ${i}` });
      samples.push((await b.arrival(sent.id)) - start);
    }

    // Throughput: 100 posters on A; A's own rate, and the rate at which B has them all.
    const texts = Array.from({ length: 64 }, (_, i) => chatText(1024, i));
    const goal = b.count + options.events;
    let next = 0;
    const start = monotonicMs();
    await Promise.all(
      posters.map(async (poster) => {
        for (let n = next++; n < options.events; n = next++) await poster.post({ thread: 'general', text: texts[n % texts.length]! });
      }),
    );
    const localSeconds = (monotonicMs() - start) / 1000;
    while (b.count < goal) await new Promise((resolve) => setTimeout(resolve, 1));
    const linkedSeconds = (b.lastAtMs - start) / 1000;

    // Catch-up: B stopped, 1,000 posted on A, B started again on its home.
    await b.stop();
    for (let n = 0; n < 1000; n += POSTERS) await Promise.all(posters.map((poster, i) => poster.post({ thread: 'general', text: `while away ${n + i}` })));
    b = new HubB(homes[1]!);
    await b.next('opened');
    b.send({ expect: 1000 });
    const { ms: catchUpMs } = await b.next('reached');

    // Memory under a steady 1,000 events/s: 100 posts every 100 ms.
    const memoryOfB = async (): Promise<{ rss: number; heap: number }> => {
      b.send({ rss: true });
      return b.next('rss');
    };
    const rssOfA = (): number => process.memoryUsage().rss / 1024 / 1024;
    // The JS heap too, after a collection when node runs with --expose-gc: growth of RSS alone may be the heap not yet collected.
    const heapOfA = (): number => {
      (globalThis as { gc?: () => void }).gc?.();
      return process.memoryUsage().heapUsed / 1024 / 1024;
    };
    const sample = async (seconds: number): Promise<MemorySample> => {
      const ofB = await memoryOfB();
      return { seconds, aMb: rssOfA(), aHeapMb: heapOfA(), bMb: ofB.rss, bHeapMb: ofB.heap };
    };
    const series: MemorySample[] = [await sample(0)];
    const steadyGoal = b.count + options.rssSeconds * 10 * POSTERS;
    for (let tick = 0; tick < options.rssSeconds * 10; tick++) {
      const tickStart = performance.now();
      await Promise.all(posters.map((poster, i) => poster.post({ thread: 'general', text: `steady ${tick}.${i}` })));
      if (tick > 0 && tick % 300 === 0) series.push(await sample(tick / 10));
      const left = 100 - (performance.now() - tickStart);
      if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
    }
    while (b.count < steadyGoal) await new Promise((resolve) => setTimeout(resolve, 5));
    series.push(await sample(options.rssSeconds));
    const [first, last] = [series[0]!, series[series.length - 1]!];
    const rss = {
      seconds: options.rssSeconds,
      a: { startMb: first.aMb, endMb: last.aMb, heapStartMb: first.aHeapMb, heapEndMb: last.aHeapMb },
      b: { startMb: first.bMb, endMb: last.bMb, heapStartMb: first.bHeapMb, heapEndMb: last.bHeapMb },
      series,
    };

    return {
      latency: summarize(samples),
      throughput: { events: options.events, localPerSecond: options.events / localSeconds, linkedPerSecond: options.events / linkedSeconds },
      catchUpMs,
      linkSetupMs,
      rss,
    };
  } finally {
    await b.stop().catch(() => b.kill());
    await links?.stop();
    await hub.close();
    for (const home of homes) fs.rmSync(home, { recursive: true, force: true });
  }
}
